#include "modes/devicespec.h"
#include "modes/jetsonfamily.h"

#include <QTest>

using namespace ptwb;

class TestDeviceSpec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void builtinTables_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("maxCores");
        QTest::addColumn<int>("cpuCount");
        QTest::addColumn<int>("gpuCount");
        QTest::addColumn<int>("emcCount");
        QTest::addColumn<qint64>("cpuMax");
        QTest::addColumn<qint64>("gpuMax");
        QTest::newRow("orin-agx") << "orin-agx" << 12 << 29 << 13 << 4 << qint64(2201600)
                                  << qint64(1300500000);
        QTest::newRow("xavier-agx")
            << "xavier-agx" << 8 << 29 << 14 << 9 << qint64(2265600) << qint64(1377000000);
        QTest::newRow("orin-nano")
            << "orin-nano" << 6 << 20 << 5 << 3 << qint64(1510400) << qint64(624750000);
        // Issue 22's families: top clocks from NVIDIA's material, steps illustrative.
        QTest::newRow("orin-nano-super")
            << "orin-nano-super" << 6 << 22 << 8 << 4 << qint64(1728000) << qint64(1020000000);
        QTest::newRow("orin-nx") << "orin-nx" << 8 << 26 << 7 << 4 << qint64(1984000)
                                 << qint64(918000000);
        QTest::newRow("xavier-nx")
            << "xavier-nx" << 6 << 25 << 11 << 8 << qint64(1907200) << qint64(1109250000);
        QTest::newRow("agx-thor") << "agx-thor" << 14 << 17 << 9 << 5 << qint64(2601000)
                                  << qint64(1575000000);
    }

    void builtinTables()
    {
        QFETCH(QString, id);
        QFETCH(int, maxCores);
        QFETCH(int, cpuCount);
        QFETCH(int, gpuCount);
        QFETCH(int, emcCount);
        QFETCH(qint64, cpuMax);
        QFETCH(qint64, gpuMax);
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(id);
        QVERIFY2(spec.ok(), qPrintable(spec.error()));
        QCOMPARE(spec->id(), id);
        QCOMPARE(spec->minCores(), 1);
        QCOMPARE(spec->maxCores(), maxCores);
        QCOMPARE(spec->values(Dimension::Cpu).size(), cpuCount);
        QCOMPARE(spec->values(Dimension::Gpu).size(), gpuCount);
        QCOMPARE(spec->values(Dimension::Emc).size(), emcCount);
        QCOMPARE(spec->maxMode().cpuKHz, cpuMax);
        QCOMPARE(spec->maxMode().gpuHz, gpuMax);
        QVERIFY(!spec->presets().isEmpty());
        QVERIFY(spec->preset(spec->defaultPreset()) != nullptr);
    }

    void orinTableValues()
    {
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(QStringLiteral("orin-agx"));
        QVERIFY(spec.ok());
        const QVector<qint64> &cpu = spec->values(Dimension::Cpu);
        QCOMPARE(cpu.front(), qint64(115200));
        QCOMPARE(cpu[cpu.size() - 2], qint64(2188800));
        for (int i = 1; i < cpu.size() - 1; ++i)
            QCOMPARE(cpu[i] - cpu[i - 1], qint64(76800));
        const QVector<qint64> &gpu = spec->values(Dimension::Gpu);
        QCOMPARE(gpu[11], qint64(1236750000));
        QCOMPARE(spec->values(Dimension::Emc),
                 (QVector<qint64> {204000000, 665600000, 2133000000, 3199000000}));
        const Preset *preset = spec->preset(QStringLiteral("MODE_30W"));
        QVERIFY(preset);
        QCOMPARE(preset->cores, 8);
        QCOMPARE(preset->cpuMaxKHz, qint64(1728000));
    }

    void unknownDevice()
    {
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(QStringLiteral("tx2"));
        QVERIFY(!spec.ok());
        QCOMPARE(spec.error(),
                 QStringLiteral("unknown device 'tx2'; expected one of: agx-thor, orin-agx, "
                                "orin-nano, orin-nano-super, orin-nx, xavier-agx, xavier-nx"));
    }

    // Every family the classifier knows has a built-in table of the same SoC, and every
    // built-in table is such a family: a connected device and its offline table agree.
    void builtinsAreTheFamilies()
    {
        QStringList families;
        for (const JetsonFamily &family : jetsonFamilies()) {
            families.append(family.id);
            const Expected<DeviceSpec> spec = DeviceSpec::builtin(family.id);
            QVERIFY2(spec.ok(), qPrintable(spec.error()));
            QCOMPARE(spec->socFamily(), family.socFamily);
        }
        families.sort();
        QCOMPARE(DeviceSpec::builtinIds(), families);
    }

    void badJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        const QByteArray valid = R"({"id":"x","name":"X","cores":{"min":1,"max":2},)"
                                 R"("cpu_khz":[1,2],"gpu_hz":[3],"emc_hz":[4]})";
        QTest::newRow("not json") << QByteArray("{oops")
                                  << "dev.json: not a JSON object (unterminated object at byte 2)";
        QTest::newRow("missing id") << QByteArray(valid).replace(R"("id":"x",)", "")
                                    << "dev.json: field 'id': expected a non-empty string";
        QTest::newRow("descending") << QByteArray(valid).replace("[1,2]", "[2,1]")
                                    << "dev.json: field 'cpu_khz[1]': values must be strictly "
                                       "ascending";
        QTest::newRow("fraction") << QByteArray(valid).replace("[3]", "[3.5]")
                                  << "dev.json: field 'gpu_hz[0]': expected a positive whole "
                                     "number";
        QTest::newRow("cores reversed") << QByteArray(valid).replace(R"("max":2)", R"("max":0)")
                                        << "dev.json: field 'cores.max': expected a positive "
                                           "whole number";
        QTest::newRow("preset without cap")
            << QByteArray(valid).replace(
                   R"("emc_hz":[4]})",
                   R"("emc_hz":[4],"presets":[{"name":"P","id":0,"cores":1,"cpu_max_khz":1,)"
                   R"("gpu_max_hz":3}]})")
            << "dev.json: field 'presets[0].emc_max_hz': expected a positive whole number";
    }

    void badJson()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        const Expected<DeviceSpec> spec = DeviceSpec::fromJson(json, QStringLiteral("dev.json"));
        QVERIFY(!spec.ok());
        QCOMPARE(spec.error(), error);
    }
};

QTEST_GUILESS_MAIN(TestDeviceSpec)
#include "test_devicespec.moc"
