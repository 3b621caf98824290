// What `ptwb` asks a device nobody gave a kind before planning for it (issue 22): the kind of the
// tables it reports. Every simulated family is its built-in kind; a device
// with other tables is its own spec, found again by id; a device the workbench cannot drive is
// refused naming what is missing, before anything is planned.
#include "deviceprobe.h"
#include "devicespecrecord.h"
#include "localprocesstransport.h"
#include "modes/devicespec.h"
#include "simulatorlauncher.h"
#include "store/devicespecstore.h"
#include "store/store.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::workflows;

namespace {

// A stand-in agent: answers every request with this hello (one line of the device protocol).
const char *const kFakeAgent =
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    req = json.loads(line)\n"
    "    hello = {'agent_version': '1.0.0', 'model': sys.argv[1], 'boot_id': 'b1',\n"
    "             'l4t': '36.4.0', 'device': None,\n"
    "             'tables': {'cores': [1, 2, 3, 4, 5, 6], 'cpu_khz': [115200, 1728000],\n"
    "                        'gpu_hz': [306000000, 1020000000],\n"
    "                        'emc_hz': [204000000, 3199000000]},\n"
    "             'presets': [], 'rails': ['VDD_IN'],\n"
    "             'mode': {'cores': 6, 'cpu_khz': 1728000, 'gpu_hz': 1020000000,\n"
    "                      'emc_hz': 3199000000}}\n"
    "    print(json.dumps({'id': req.get('id'), 'ok': True, 'result': hello}), flush=True)\n";

// A device known only by its address, like an SSH device given no --kind and no name.
DeviceEndpoint unnamed(std::function<Expected<Transport *>()> connect)
{
    DeviceEndpoint device;
    device.name = QStringLiteral("lab device");
    device.address = QStringLiteral("ssh://nvidia@lab");
    device.simulated = false;
    device.connect = std::move(connect);
    return device;
}

DeviceEndpoint fakeAgent(const QString &model)
{
    return unnamed([model]() -> Expected<Transport *> {
        return new LocalProcessTransport(QStringLiteral("python3"),
                                         {QStringLiteral("-c"), QLatin1String(kFakeAgent), model},
                                         QStringLiteral("a stand-in agent"));
    });
}

}  // namespace

class TestDeviceProbe : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
    }

    // The simulated Jetson serves each family's tables through a fake sysfs and nvpmodel.conf
    // that the real agent reads: the spec built from its hello is that family's built-in table
    // (the Orin Nano before and after the Super clocks included), stored and read back whole.
    void eachSimulatedFamilyIsItsBuiltinKind_data()
    {
        QTest::addColumn<QString>("family");
        for (const QString &id : DeviceSpec::builtinIds())
            QTest::newRow(qPrintable(id)) << id;
    }

    void eachSimulatedFamilyIsItsBuiltinKind()
    {
        QFETCH(QString, family);
        SimulatorOptions sim;
        sim.deviceKind = family;
        sim.stateDirectory = m_dir.filePath(family);
        const DeviceEndpoint device = unnamed([sim]() -> Expected<Transport *> {
            Expected<LocalProcessTransport *> transport = SimulatorLauncher::transport(sim);
            if (!transport)
                return passOn<Expected<Transport *>>(transport);
            return static_cast<Transport *>(*transport);
        });
        const Expected<DeviceInfo> info = probeDevice(device);
        QVERIFY2(info, qPrintable(info.error()));
        QCOMPARE(info->kind, family);
        QVERIFY(!info->ownTables);

        const QString db = m_dir.filePath(family + QStringLiteral(".sqlite"));
        {
            auto store = Store::open(db);
            QVERIFY2(store, qPrintable(store.error()));
            QCOMPARE(recordDeviceSpec(**store, device.address, *info), QString());
        }
        auto reopened = Store::open(db);
        QVERIFY(reopened);
        const auto history = DeviceSpecStore(**reopened).history(device.address);
        QVERIFY(history && history->size() == 1);
        QCOMPARE(history->first().family, family);
        const Expected<DeviceSpec> stored =
            DeviceSpecStore(**reopened).load(history->first().specId);
        QVERIFY2(stored, qPrintable(stored.error()));
        QVERIFY(stored->sameTables(DeviceSpec::builtin(family).value()));

        const Expected<QVector<DeviceEndpoint>> probed = withReportedKinds({device});
        QVERIFY2(probed, qPrintable(probed.error()));
        QCOMPARE(probed->first().kind, family);
        QCOMPARE(probed->first().storeName, family);
    }

    void otherTablesAreTheDevicesOwnSpec()
    {
        const Expected<QVector<DeviceEndpoint>> probed =
            withReportedKinds({fakeAgent(QStringLiteral("NVIDIA Jetson Orin Nano Developer Kit"))});
        QVERIFY2(probed, qPrintable(probed.error()));
        const QString kind = probed->first().kind;
        QVERIFY2(kind.startsWith(QLatin1String("orin-nano-super-")), qPrintable(kind));
        const Expected<DeviceSpec> spec = DeviceSpec::lookup(kind);
        QVERIFY2(spec, qPrintable(spec.error()));
        QCOMPARE(spec->values(Dimension::Gpu), (QVector<qint64> {306000000, 1020000000}));
        // A kind given beforehand names the family: the device's own tables all the same, and
        // a device of another family is refused naming both.
        DeviceEndpoint given = fakeAgent(QStringLiteral("NVIDIA Jetson Orin Nano Developer Kit"));
        given.kind = QStringLiteral("orin-nano-super");
        QCOMPARE(withReportedKinds({given})->first().kind, kind);
        given.kind = QStringLiteral("orin-nx");
        const Expected<QVector<DeviceEndpoint>> refused = withReportedKinds({given});
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(QLatin1String("is a orin-nano-super, not a orin-nx")),
                 qPrintable(refused.error()));
    }

    void aDeviceItCannotDriveIsRefusedBeforeAnyPlan()
    {
        const Expected<QVector<DeviceEndpoint>> probed =
            withReportedKinds({fakeAgent(QStringLiteral("Raspberry Pi 5 Model B"))});
        QVERIFY(!probed);
        QCOMPARE(probed.field(), InputField::Target);
        QVERIFY2(probed.error().contains(QLatin1String("ssh://nvidia@lab")) &&
                     probed.error().contains(QLatin1String("no Jetson the workbench knows")),
                 qPrintable(probed.error()));
    }

    void aDeviceThatNeverAnswersIsAFailureNotAHang()
    {
        const DeviceEndpoint silent = unnamed([]() -> Expected<Transport *> {
            return new LocalProcessTransport(
                QStringLiteral("python3"),
                {QStringLiteral("-c"), QStringLiteral("import time; time.sleep(30)")},
                QStringLiteral("a silent agent"));
        });
        const Expected<DeviceInfo> info = probeDevice(silent, 1500);
        QVERIFY(!info);
        QVERIFY2(info.error().contains(QLatin1String("no hello within")), qPrintable(info.error()));
    }
};

QTEST_GUILESS_MAIN(TestDeviceProbe)
#include "test_deviceprobe.moc"
