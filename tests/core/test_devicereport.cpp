// A device's own spec from what it reports (issue 22): its family from the model (the Orin Nano
// before and after the Super clocks told apart by its GPU table), its tables and presets as
// reported, a stable id, and a clear refusal of what cannot be driven. The reports are shaped
// like the agent's hello on each family; the clock tables are illustrative, not a device's.
#include "modes/devicereport.h"
#include "modes/jetsonfamily.h"
#include "modes/modespace.h"

#include <QTest>

using namespace ptwb;

namespace {

QVector<qint64> steps(qint64 from, qint64 to, int count)
{
    QVector<qint64> out;
    for (int i = 0; i < count; ++i)
        out.append(from + (to - from) * i / (count - 1));
    return out;
}

DeviceReport::ReportedPreset preset(const char *name, int id, int cores, qint64 cpu, qint64 gpu,
                                    qint64 emc)
{
    DeviceReport::ReportedPreset p;
    p.name = QString::fromLatin1(name);
    p.id = id;
    Preset caps;
    caps.name = p.name;
    caps.id = id;
    caps.cores = cores;
    caps.cpuMaxKHz = cpu;
    caps.gpuMaxHz = gpu;
    caps.emcMaxHz = emc;
    p.caps = caps;
    return p;
}

DeviceReport orinNano(bool super)
{
    DeviceReport r;
    r.model = QStringLiteral("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit");
    r.l4t = super ? QStringLiteral("36.4.0") : QStringLiteral("35.4.1");
    r.maxCores = 6;
    r.cpuKHz = steps(115200, super ? 1728000 : 1510400, 20);
    r.gpuHz = super ? QVector<qint64> {306000000, 408000000, 624750000, 828750000, 1020000000}
                    : QVector<qint64> {306000000, 408000000, 510000000, 624750000};
    r.emcHz = super ? QVector<qint64> {204000000, 2133000000, 3199000000}
                    : QVector<qint64> {204000000, 665600000, 2133000000};
    if (super) {
        r.presets = {preset("7W", 1, 4, 960000, 408000000, 2133000000),
                     preset("15W", 0, 6, 1497600, 624750000, 3199000000),
                     preset("25W", 2, 6, 1344000, 918000000, 3199000000),
                     preset("MAXN_SUPER", 3, 6, 1728000, 1020000000, 3199000000)};
        r.currentPreset = QStringLiteral("MAXN_SUPER");
    } else {
        r.presets = {preset("MODE_15W", 0, 6, 1510400, 624750000, 2133000000),
                     preset("MODE_7W", 1, 4, 960000, 408000000, 2133000000)};
        r.currentPreset = QStringLiteral("MODE_15W");
    }
    r.rails = {QStringLiteral("VDD_IN"), QStringLiteral("VDD_CPU_GPU_CV"),
               QStringLiteral("VDD_SOC")};
    return r;
}

DeviceReport withModel(const QString &model, int cores, qint64 gpuTop)
{
    DeviceReport r;
    r.model = model;
    r.maxCores = cores;
    r.cpuKHz = steps(115200, 1984000, 25);
    r.gpuHz = steps(114750000, gpuTop, 8);
    r.emcHz = {204000000, 2133000000, 3199000000};
    return r;
}

}  // namespace

class TestDeviceReport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eachFamilyIsRecognisedByItsModel_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qint64>("gpuTop");
        QTest::addColumn<QString>("family");
        QTest::newRow("AGX Orin") << "NVIDIA Jetson AGX Orin Developer Kit" << qint64(1300500000)
                                  << "orin-agx";
        QTest::newRow("Orin NX 16GB") << "NVIDIA Jetson Orin NX Engineering Reference Developer Kit"
                                      << qint64(918000000) << "orin-nx";
        QTest::newRow("Orin Nano")
            << "NVIDIA Jetson Orin Nano Developer Kit" << qint64(624750000) << "orin-nano";
        QTest::newRow("Orin Nano, Super clocks")
            << "NVIDIA Jetson Orin Nano Developer Kit" << qint64(1020000000) << "orin-nano-super";
        QTest::newRow("Orin Nano Super by name")
            << "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"
            << qint64(1020000000) << "orin-nano-super";
        QTest::newRow("AGX Xavier") << "Jetson-AGX" << qint64(1377000000) << "xavier-agx";
        QTest::newRow("Xavier NX")
            << "NVIDIA Jetson Xavier NX Developer Kit" << qint64(1100000000) << "xavier-nx";
        QTest::newRow("AGX Thor") << "NVIDIA Jetson AGX Thor Developer Kit" << qint64(1575000000)
                                  << "agx-thor";
    }

    void eachFamilyIsRecognisedByItsModel()
    {
        QFETCH(QString, model);
        QFETCH(qint64, gpuTop);
        QFETCH(QString, family);
        const Expected<JetsonFamily> found = jetsonFamilyOf(model, gpuTop);
        QVERIFY2(found, qPrintable(found.error()));
        QCOMPARE(found->id, family);
        // and a spec of that family is built from its report
        const Expected<DeviceSpec> spec = deviceSpecFromReport(withModel(model, 8, gpuTop));
        QVERIFY2(spec, qPrintable(spec.error()));
        QVERIFY2(spec->id().startsWith(family + QLatin1Char('-')), qPrintable(spec->id()));
        QCOMPARE(spec->values(Dimension::Gpu).back(), gpuTop);
    }

    void theNanoBeforeAndAfterTheSuperClocksAreTwoSpecs()
    {
        const Expected<DeviceSpec> before = deviceSpecFromReport(orinNano(false));
        const Expected<DeviceSpec> after = deviceSpecFromReport(orinNano(true));
        QVERIFY2(before && after, qPrintable(before.error() + after.error()));
        QVERIFY(before->id().startsWith(QLatin1String("orin-nano-")));
        QVERIFY(after->id().startsWith(QLatin1String("orin-nano-super-")));
        QVERIFY(before->id() != after->id());
        // the Super's fast half is in its spec: GPU above 625 MHz, memory at 3200 MT/s
        QCOMPARE(after->maxMode().value(Dimension::Gpu), qint64(1020000000));
        QCOMPARE(after->maxMode().value(Dimension::Emc), qint64(3199000000));
        QCOMPARE(before->maxMode().value(Dimension::Gpu), qint64(624750000));
        QStringList presets;
        for (const Preset &p : after->presets())
            presets << p.name;
        QCOMPARE(presets, (QStringList {"7W", "15W", "25W", "MAXN_SUPER"}));
        QCOMPARE(after->defaultPreset(), QStringLiteral("MAXN_SUPER"));
        QVERIFY(after->source().contains(QLatin1String("36.4.0")));
        // 6 cores x 20 CPU x 5 GPU x 3 EMC
        QCOMPARE(ModeSpace(*after).size(), qint64(6 * 20 * 5 * 3));
    }

    void theSameTablesKeepTheirIdInAnyOrder()
    {
        DeviceReport shuffled = orinNano(true);
        std::reverse(shuffled.cpuKHz.begin(), shuffled.cpuKHz.end());
        shuffled.gpuHz.append(shuffled.gpuHz.first());  // a repeat
        shuffled.model += QStringLiteral(" ");  // the name is not part of the id
        const Expected<DeviceSpec> a = deviceSpecFromReport(orinNano(true));
        const Expected<DeviceSpec> b = deviceSpecFromReport(shuffled);
        QVERIFY(a && b);
        QCOMPARE(a->id(), b->id());
        DeviceReport other = orinNano(true);
        other.presets[0].caps->gpuMaxHz = 306000000;  // another preset cap: another spec
        QVERIFY(deviceSpecFromReport(other)->id() != a->id());
    }

    void thePresetInForceIsNoPartOfTheId()
    {
        DeviceReport switched = orinNano(true);
        switched.currentPreset = QStringLiteral("7W");  // `nvpmodel -m 1` between two connects
        const Expected<DeviceSpec> a = deviceSpecFromReport(orinNano(true));
        const Expected<DeviceSpec> b = deviceSpecFromReport(switched);
        QVERIFY(a && b);
        QCOMPARE(a->id(), b->id());
        QCOMPARE(b->defaultPreset(), QStringLiteral("7W"));
    }

    // A report of a built-in table (what every simulated device sends) is that built-in kind;
    // other tables of the same family are a kind of their own that DeviceSpec::lookup finds.
    void theKindIsTheBuiltinTableOrTheDevicesOwn()
    {
        const DeviceSpec builtin = DeviceSpec::builtin(QStringLiteral("orin-nano-super")).value();
        DeviceReport r;
        r.model =
            QStringLiteral("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super");
        r.maxCores = builtin.maxCores();
        r.cpuKHz = builtin.values(Dimension::Cpu);
        r.gpuHz = builtin.values(Dimension::Gpu);
        r.emcHz = builtin.values(Dimension::Emc);
        for (const Preset &p : builtin.presets()) {
            r.presets.append(
                preset(qPrintable(p.name), p.id, p.cores, p.cpuMaxKHz, p.gpuMaxHz, p.emcMaxHz));
        }
        const DeviceKind same = deviceKindOf(r, QStringLiteral("orin-nano-super"));
        QVERIFY2(same.problem.isEmpty(), qPrintable(same.problem));
        QCOMPARE(same.kind, QStringLiteral("orin-nano-super"));
        QVERIFY(same.matchesBuiltin);

        DeviceReport own = orinNano(true);  // the same family, other clock steps
        const QString ownId = deviceSpecFromReport(own)->id();
        QVERIFY(!DeviceSpec::lookup(ownId));  // nobody has seen it yet
        const DeviceKind mine = deviceKindOf(own, QStringLiteral("orin-nano-super"));
        QCOMPARE(mine.kind, ownId);
        QVERIFY(!mine.matchesBuiltin);
        QVERIFY(mine.kind.startsWith(QLatin1String("orin-nano-super-")));
        const Expected<DeviceSpec> found = DeviceSpec::lookup(mine.kind);
        QVERIFY2(found, qPrintable(found.error()));
        QCOMPARE(found->family(), QStringLiteral("orin-nano-super"));
        QCOMPARE(found->values(Dimension::Gpu), own.gpuHz);
        QCOMPARE(found->maxMode().gpuHz, qint64(1020000000));
        QVERIFY(found->preset(QStringLiteral("MAXN_SUPER")));

        // What cannot be driven has no kind, whatever the agent guessed, and says why.
        DeviceReport unknown = withModel(QStringLiteral("Raspberry Pi 5 Model B"), 4, 900000000);
        const DeviceKind refused = deviceKindOf(unknown, QStringLiteral("orin-agx"));
        QVERIFY(refused.kind.isEmpty());
        QVERIFY2(refused.problem.contains(QLatin1String("no Jetson the workbench knows")),
                 qPrintable(refused.problem));
        // An agent that sends no tables keeps the built-in table of the kind it named.
        DeviceReport bare;
        bare.model = QStringLiteral("NVIDIA Jetson AGX Orin Developer Kit");
        QCOMPARE(deviceKindOf(bare, QStringLiteral("orin-agx")).kind, QStringLiteral("orin-agx"));
        QVERIFY(deviceKindOf(bare, QStringLiteral("tx2")).kind.isEmpty());
        QCOMPARE(DeviceSpec::lookup(QStringLiteral("orin-agx")).value().id(),
                 QStringLiteral("orin-agx"));
        QVERIFY(!DeviceSpec::lookup(QStringLiteral("orin-agx-000000000000")));
    }

    // nvpmodel.conf caps the AGX Orin's GPU at 408 MHz in MODE_15W; the table steps from 318.75
    // to 420.75 MHz, and the agent reports the 318.75 MHz that takes effect: the same table.
    void aCapIsComparedByWhatItAllows()
    {
        const DeviceSpec agx = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
        const auto report = [&agx](qint64 gpuCap15W) {
            DeviceReport r;
            r.model = QStringLiteral("NVIDIA Jetson AGX Orin Developer Kit");
            r.maxCores = agx.maxCores();
            r.cpuKHz = agx.values(Dimension::Cpu);
            r.gpuHz = agx.values(Dimension::Gpu);
            r.emcHz = agx.values(Dimension::Emc);
            for (const Preset &p : agx.presets()) {
                const bool is15W = p.name == QLatin1String("MODE_15W");
                r.presets.append(preset(qPrintable(p.name), p.id, p.cores, p.cpuMaxKHz,
                                        is15W ? gpuCap15W : p.gpuMaxHz, p.emcMaxHz));
            }
            return r;
        };
        QCOMPARE(agx.preset(QStringLiteral("MODE_15W"))->gpuMaxHz, qint64(408000000));
        QCOMPARE(deviceKindOf(report(318750000), {}).kind, QStringLiteral("orin-agx"));
        // A cap that lets another clock through is another preset: the device's own spec.
        const DeviceKind other = deviceKindOf(report(420750000), {});
        QVERIFY2(other.kind.startsWith(QLatin1String("orin-agx-")), qPrintable(other.kind));
    }

    void aModeOfAnotherFamilyIsRefused()
    {
        const Expected<DeviceSpec> nano = deviceSpecFromReport(orinNano(false));
        QVERIFY(nano);
        const Expected<DeviceSpec> agx = DeviceSpec::builtin(QStringLiteral("orin-agx"));
        QVERIFY(agx);
        PowerMode fast = agx->maxMode();  // AGX Orin's MAXN, with cores the Nano has
        fast.setValue(Dimension::Cores, 6);
        const Status checked = ModeSpace(*nano).validate(fast);
        QVERIFY(!checked);
        qInfo("%s", qPrintable(checked.error()));
        QVERIFY2(checked.error().contains(QLatin1String("gpu")) ||
                     checked.error().contains(QLatin1String("cpu")),
                 qPrintable(checked.error()));
        fast.setValue(Dimension::Cores, 12);
        QVERIFY(!ModeSpace(*nano).validate(fast));
    }

    void emcThatCannotBeControlledIsFixedAtItsClock()
    {
        DeviceReport r = orinNano(false);
        r.emcHz.clear();
        r.currentEmcHz = 2133000000;
        const Expected<DeviceSpec> spec = deviceSpecFromReport(r);
        QVERIFY2(spec, qPrintable(spec.error()));
        QCOMPARE(spec->values(Dimension::Emc), (QVector<qint64> {2133000000}));
        QVERIFY(spec->source().contains(QLatin1String("EMC is not controllable")));
    }

    void whatCannotBeDrivenIsRefusedNamingWhatIsMissing_data()
    {
        QTest::addColumn<int>("what");
        QTest::addColumn<QString>("says");
        QTest::newRow("unknown model") << 0 << "no Jetson the workbench knows";
        QTest::newRow("no GPU table") << 1 << "its GPU frequencies";
        QTest::newRow("no EMC at all") << 2 << "its memory (EMC) clock";
        QTest::newRow("no cores") << 3 << "its CPU cores";
    }

    void whatCannotBeDrivenIsRefusedNamingWhatIsMissing()
    {
        QFETCH(int, what);
        QFETCH(QString, says);
        DeviceReport r = orinNano(false);
        if (what == 0)
            r.model = QStringLiteral("Raspberry Pi 5 Model B \x1b]0;title\x07");
        if (what == 1)
            r.gpuHz.clear();
        if (what == 2)
            r.emcHz.clear();
        if (what == 3)
            r.maxCores = 0;
        const Expected<DeviceSpec> spec = deviceSpecFromReport(r);
        QVERIFY(!spec);
        qInfo("%s", qPrintable(spec.error()));
        QVERIFY2(spec.error().contains(says), qPrintable(spec.error()));
        QVERIFY2(!spec.error().contains(QChar(0x1b)), "device text is made printable");
        if (what == 0)
            QVERIFY(spec.error().contains(QLatin1String("Jetson Orin Nano (Super clocks)")));
    }
};

QTEST_GUILESS_MAIN(TestDeviceReport)
#include "test_devicereport.moc"
