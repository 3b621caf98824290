// A connected device's own spec recorded from its hello (issue 22): preset caps read from the
// wire, the spec stored under the device, a change of tables said and both specs kept, and a
// device the workbench cannot drive named.
#include "devicespecrecord.h"
#include "modes/jetsonfamily.h"
#include "store/devicespecstore.h"
#include "store/store.h"
#include "wire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

namespace {

// hello as the agent writes it for an Orin Nano, before or after the Super clocks.
DeviceInfo hello(bool super,
                 const QString &model = QStringLiteral("NVIDIA Jetson Orin Nano Developer Kit"),
                 bool emcLocked = false)
{
    QJsonArray gpu {306000000, 624750000};
    if (super)
        gpu.append(1020000000);
    const QJsonObject preset {{"id", 0},
                              {"name", "15W"},
                              {"cores", 6},
                              {"cpu_khz_max", 1510400},
                              {"gpu_hz_max", 624750000},
                              {"emc_hz_max", 2133000000}};
    const QJsonObject uncapped {{"id", 5}, {"name", "ODD"}, {"cpu_khz_max", "fast"}};
    const QJsonObject json {
        {"agent_version", "1"},
        {"model", model},
        {"boot_id", super ? "after" : "before"},
        {"l4t", super ? "36.4.0" : "35.4.1"},
        {"tables",
         QJsonObject {{"cores", QJsonArray {1, 2, 3, 4, 5, 6}},
                      {"cpu_khz", QJsonArray {115200, 1510400}},
                      {"gpu_hz", gpu},
                      {"emc_hz", emcLocked ? QJsonArray {} : QJsonArray {204000000, 2133000000}}}},
        {"presets", QJsonArray {preset, uncapped}},
        {"rails", QJsonArray {"VDD_IN"}},
        {"mode",
         QJsonObject {
             {"cores", 6}, {"cpu_khz", 1510400}, {"gpu_hz", 624750000}, {"emc_hz", 2133000000}}}};
    Expected<DeviceInfo> info = DeviceInfo::fromJson(json);
    if (!info)
        qFatal("%s", qPrintable(info.error()));
    return *info;
}

}  // namespace

class TestDeviceSpecRecord : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void presetCapsAreReadFromTheWire()
    {
        const DeviceInfo info = hello(false);
        QCOMPARE(info.presets.size(), 2);
        QCOMPARE(info.presets[0].gpuMaxHz, qint64(624750000));
        QCOMPARE(info.presets[0].cores, 6);
        QCOMPARE(info.presets[1].cpuMaxKHz, qint64(0));  // "fast" is no cap: unknown
        const DeviceReport report = info.report();
        QVERIFY(report.presets[0].caps);
        QVERIFY(!report.presets[1].caps);
        QCOMPARE(report.maxCores, 6);
        QCOMPARE(report.currentEmcHz, qint64(2133000000));
    }

    void anUpgradeIsSaidAndBothSpecsKept()
    {
        auto store = Store::open(m_dir.filePath(QStringLiteral("record.sqlite")));
        QVERIFY2(store, qPrintable(store.error()));
        const QString device = QStringLiteral("ssh://nvidia@nano");
        QCOMPARE(recordDeviceSpec(**store, device, hello(false)), QString());
        QCOMPARE(recordDeviceSpec(**store, device, hello(false)), QString());  // nothing new
        const QString note = recordDeviceSpec(**store, device, hello(true));
        const auto history = DeviceSpecStore(**store).history(device);
        QVERIFY(history);
        QCOMPARE(history->size(), 2);
        QCOMPARE(history->at(0).family, QStringLiteral("orin-nano-super"));
        QCOMPARE(history->at(1).family, QStringLiteral("orin-nano"));
        QVERIFY2(note.contains(QLatin1String("tables changed")), qPrintable(note));
        QVERIFY2(note.contains(history->at(0).specId) && note.contains(history->at(1).specId),
                 qPrintable(note));
        QVERIFY2(note.contains(QLatin1String("36.4.0")), qPrintable(note));
    }

    // The kind the workbench drives the device as: its own tables (these illustrative ones are
    // no built-in table), found again by id; a device it cannot drive has none and says why.
    void theKindComesFromTheReportedTables()
    {
        const DeviceInfo nano = hello(false);
        QVERIFY2(nano.kind.startsWith(QLatin1String("orin-nano-")), qPrintable(nano.kind));
        QVERIFY(nano.ownTables);
        QVERIFY(nano.kindProblem.isEmpty());
        const Expected<DeviceSpec> spec = DeviceSpec::lookup(nano.kind);
        QVERIFY2(spec, qPrintable(spec.error()));
        QCOMPARE(spec->values(Dimension::Gpu), (QVector<qint64> {306000000, 624750000}));
        const DeviceInfo super = hello(true);
        QVERIFY2(super.kind.startsWith(QLatin1String("orin-nano-super-")), qPrintable(super.kind));
        QCOMPARE(DeviceSpec::lookup(super.kind)->maxMode().gpuHz, qint64(1020000000));
        const DeviceInfo pi = hello(false, QStringLiteral("Raspberry Pi 5"));
        QVERIFY(pi.kind.isEmpty());
        QVERIFY2(pi.kindProblem.contains(QLatin1String("no Jetson the workbench knows")),
                 qPrintable(pi.kindProblem));
    }

    // A memory clock the device does not let us control (hello's emc_hz is empty): the device
    // is still driven, its EMC fixed at the clock it runs at.
    void anEmcThatCannotBeControlledIsFixedAtItsClock()
    {
        const DeviceInfo info =
            hello(false, QStringLiteral("NVIDIA Jetson Orin Nano Developer Kit"), true);
        QVERIFY(info.emcHz.isEmpty());
        QVERIFY2(!info.kind.isEmpty(), qPrintable(info.kindProblem));
        const Expected<DeviceSpec> spec = DeviceSpec::lookup(info.kind);
        QVERIFY2(spec, qPrintable(spec.error()));
        QCOMPARE(spec->values(Dimension::Emc), (QVector<qint64> {2133000000}));
        QVERIFY(spec->source().contains(QLatin1String("not controllable")));
    }

    // What the agent says on a Raspberry Pi (no GPU table, no helper): refused as no Jetson the
    // workbench knows, naming the model, not as a helper to install; a Jetson without its helper
    // still gets the helper's message.
    void aHostThatIsNoJetsonIsRefusedAsThat()
    {
        const auto piHello = [](const QString &model) {
            return QJsonObject {{"agent_version", "1.0.0"},
                                {"model", model},
                                {"device", QJsonValue::Null},
                                {"boot_id", "abcd1234"},
                                {"tables",
                                 QJsonObject {{"cores", QJsonArray {1, 2, 3, 4}},
                                              {"cpu_khz", QJsonArray {1500000, 2400000}},
                                              {"gpu_hz", QJsonArray {}},
                                              {"emc_hz", QJsonArray {}}}},
                                {"mode",
                                 QJsonObject {{"cores", 4},
                                              {"cpu_khz", 2400000},
                                              {"gpu_hz", QJsonValue::Null},
                                              {"emc_hz", QJsonValue::Null}}},
                                {"helper",
                                 QJsonObject {{"state", "missing"},
                                              {"message",
                                               "/usr/lib/powertrain-workbench/ptwb-helper is not "
                                               "installed; run `ptwb device setup`"}}}};
        };
        const Expected<DeviceInfo> pi =
            DeviceInfo::fromJson(piHello(QStringLiteral("Raspberry Pi 5 Model B Rev 1.0")));
        QVERIFY(!pi);
        QVERIFY2(pi.error().contains(QLatin1String("no Jetson the workbench knows")) &&
                     pi.error().contains(QLatin1String("Raspberry Pi 5")) &&
                     !pi.error().contains(QLatin1String("helper")),
                 qPrintable(pi.error()));
        const Expected<DeviceInfo> orin =
            DeviceInfo::fromJson(piHello(QStringLiteral("NVIDIA Jetson AGX Orin Developer Kit")));
        QVERIFY(!orin);
        QVERIFY2(orin.error().contains(QLatin1String("helper cannot be used")),
                 qPrintable(orin.error()));
    }

    // A device's model and release are stored and shown: a device cannot make them huge.
    void modelAndReleaseAreBounded()
    {
        const DeviceInfo info = hello(
            false, QStringLiteral("NVIDIA Jetson Orin Nano ") + QString(100000, QLatin1Char('x')));
        QCOMPARE(info.model.size(), DeviceInfo::kMaxModelChars);
        QVERIFY(info.l4t.size() <= DeviceInfo::kMaxL4tChars);
    }

    void aDeviceItCannotDriveIsNamed()
    {
        auto store = Store::open(m_dir.filePath(QStringLiteral("unknown.sqlite")));
        QVERIFY(store);
        const QString note = recordDeviceSpec(**store, QStringLiteral("ssh://pi@box"),
                                              hello(false, QStringLiteral("Raspberry Pi 5")));
        QVERIFY2(note.contains(QLatin1String("no Jetson the workbench knows")), qPrintable(note));
        QCOMPARE(*(*store)->connection().queryInt(QStringLiteral("SELECT count(*) FROM "
                                                                 "device_specs")),
                 qint64(0));
    }
};

QTEST_GUILESS_MAIN(TestDeviceSpecRecord)
#include "test_devicespecrecord.moc"
