// A device's own spec in the store (issue 22): stored and read back whole, and a device whose
// tables change (a JetPack upgrade gives an Orin Nano the Super clocks) keeps both specs and is
// told which one it had before.
#include "modes/devicereport.h"
#include "modes/modespace.h"
#include "store/devicespecstore.h"
#include "store/store.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

namespace {

DeviceReport nano(bool super)
{
    DeviceReport r;
    r.model = QStringLiteral("NVIDIA Jetson Orin Nano Developer Kit");
    r.l4t = super ? QStringLiteral("36.4.0") : QStringLiteral("35.4.1");
    r.maxCores = 6;
    r.cpuKHz = {115200, 729600, 1510400};
    if (super)
        r.cpuKHz.append(1728000);
    r.gpuHz = {306000000, 624750000};
    if (super)
        r.gpuHz.append(1020000000);
    r.emcHz = {204000000, 2133000000};
    if (super)
        r.emcHz.append(3199000000);
    DeviceReport::ReportedPreset seven;
    seven.name = QStringLiteral("7W");
    seven.id = 1;
    Preset caps;
    caps.name = seven.name;
    caps.id = 1;
    caps.cores = 4;
    caps.cpuMaxKHz = 729600;
    caps.gpuMaxHz = 306000000;
    caps.emcMaxHz = 2133000000;
    seven.caps = caps;
    DeviceReport::ReportedPreset uncapped;  // listed by name only: no baseline
    uncapped.name = QStringLiteral("CUSTOM");
    uncapped.id = 9;
    r.presets = {seven, uncapped};
    r.rails = {QStringLiteral("VDD_IN")};
    return r;
}

}  // namespace

class TestDeviceSpecStore : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::unique_ptr<Store> open(const QString &name)
    {
        Expected<std::unique_ptr<Store>> store = Store::open(m_dir.filePath(name));
        if (!store)
            qWarning("%s", qPrintable(store.error()));
        return store ? std::move(*store) : nullptr;
    }

private Q_SLOTS:
    void everyBuiltinSpecRoundTripsThroughJson()
    {
        for (const QString &id : DeviceSpec::builtinIds()) {
            const Expected<DeviceSpec> spec = DeviceSpec::builtin(id);
            QVERIFY2(spec, qPrintable(spec.error()));
            const Expected<DeviceSpec> again = DeviceSpec::fromJson(spec->toJson(), id);
            QVERIFY2(again, qPrintable(again.error()));
            QCOMPARE(again->toJson(), spec->toJson());
            QCOMPARE(ModeSpace(*again).size(), ModeSpace(*spec).size());
            QCOMPARE(again->presets().size(), spec->presets().size());
        }
    }

    void aSpecIsStoredAndReadBackWhole()
    {
        auto store = open(QStringLiteral("stored.sqlite"));
        QVERIFY(store);
        const Expected<DeviceSpec> spec = deviceSpecFromReport(nano(false));
        QVERIFY2(spec, qPrintable(spec.error()));
        QCOMPARE(spec->presets().size(), 1);  // CUSTOM reported no caps
        DeviceSpecStore specs(*store);
        const auto seen =
            specs.recordSeen(QStringLiteral("lab-nano"), *spec, QStringLiteral("orin-nano"),
                             nano(false).model, QStringLiteral("35.4.1"));
        QVERIFY2(seen, qPrintable(seen.error()));
        QVERIFY(seen->firstTimeForDevice);
        QVERIFY(!seen->previousSpecId);
        store.reset();
        // in a new session, from the file; opening the store makes the spec a kind its
        // measurements are read with, device connected or not
        QVERIFY(!DeviceSpec::lookup(spec->id()));
        auto reopened = open(QStringLiteral("stored.sqlite"));
        QVERIFY(reopened);
        const Expected<DeviceSpec> known = DeviceSpec::lookup(spec->id());
        QVERIFY2(known, qPrintable(known.error()));
        QCOMPARE(known->toJson(), spec->toJson());
        QCOMPARE(known->family(), QStringLiteral("orin-nano"));
        const Expected<DeviceSpec> loaded = DeviceSpecStore(*reopened).load(spec->id());
        QVERIFY2(loaded, qPrintable(loaded.error()));
        QCOMPARE(loaded->toJson(), spec->toJson());
        QCOMPARE(loaded->maxMode(), spec->maxMode());
        const auto missing = DeviceSpecStore(*reopened).load(QStringLiteral("orin-nano-000"));
        QVERIFY(!missing);
        QVERIFY(missing.error().contains(QLatin1String("orin-nano-000")));
    }

    void anUpgradeThatChangesTheTablesKeepsBothAndSaysSo()
    {
        auto store = open(QStringLiteral("upgrade.sqlite"));
        QVERIFY(store);
        DeviceSpecStore specs(*store);
        const Expected<DeviceSpec> before = deviceSpecFromReport(nano(false));
        const Expected<DeviceSpec> after = deviceSpecFromReport(nano(true));
        QVERIFY(before && after);
        const QString device = QStringLiteral("lab-nano");
        QVERIFY(specs.recordSeen(device, *before, QStringLiteral("orin-nano"), {}, {}));
        const auto again = specs.recordSeen(device, *before, QStringLiteral("orin-nano"), {}, {});
        QVERIFY(again && !again->firstTimeForDevice && !again->previousSpecId);
        const auto upgraded =
            specs.recordSeen(device, *after, QStringLiteral("orin-nano-super"), {}, {});
        QVERIFY2(upgraded, qPrintable(upgraded.error()));
        QVERIFY(upgraded->firstTimeForDevice);
        QCOMPARE(upgraded->previousSpecId.value_or(QString()), before->id());
        QVERIFY(!upgraded->previousLastSeen.isEmpty());
        const auto history = specs.history(device);
        QVERIFY(history);
        QCOMPARE(history->size(), 2);
        QCOMPARE(history->at(0).specId, after->id());
        QCOMPARE(history->at(0).family, QStringLiteral("orin-nano-super"));
        QCOMPARE(history->at(1).specId, before->id());
        // both still load: measurements taken under the old spec keep theirs
        QVERIFY(specs.load(before->id()));
        QVERIFY(specs.load(after->id()));
        // going back (a reflash) is a change too, and names the Super spec as the one before
        const auto back = specs.recordSeen(device, *before, QStringLiteral("orin-nano"), {}, {});
        QVERIFY(back && !back->firstTimeForDevice);
        QCOMPARE(back->previousSpecId.value_or(QString()), after->id());
        // another device with the same tables shares the stored spec
        QVERIFY(specs.recordSeen(QStringLiteral("other"), *after, QStringLiteral("orin-nano-super"),
                                 {}, {}));
        QCOMPARE(*store->connection().queryInt(QStringLiteral("SELECT count(*) FROM device_specs")),
                 qint64(2));
    }
};

QTEST_GUILESS_MAIN(TestDeviceSpecStore)
#include "test_devicespecstore.moc"
