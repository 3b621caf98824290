// What `ptwb` asks a device nobody gave a kind before planning for it (issue 22): the kind of the
// tables it reports. A simulated Orin Nano with the Super clocks is its built-in kind; a device
// with other tables is its own spec, found again by id; a device the workbench cannot drive is
// refused naming what is missing, before anything is planned.
#include "deviceprobe.h"
#include "localprocesstransport.h"
#include "modes/devicespec.h"
#include "simulatorlauncher.h"

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

    void theSimulatedSuperIsItsBuiltinKind()
    {
        SimulatorOptions sim;
        sim.deviceKind = QStringLiteral("orin-nano-super");
        sim.stateDirectory = m_dir.filePath(QStringLiteral("super"));
        const DeviceEndpoint device = unnamed([sim]() -> Expected<Transport *> {
            Expected<LocalProcessTransport *> transport = SimulatorLauncher::transport(sim);
            if (!transport)
                return passOn<Expected<Transport *>>(transport);
            return static_cast<Transport *>(*transport);
        });
        const Expected<QVector<DeviceEndpoint>> probed = withReportedKinds({device});
        QVERIFY2(probed, qPrintable(probed.error()));
        QCOMPARE(probed->first().kind, QStringLiteral("orin-nano-super"));
        QCOMPARE(probed->first().storeName, QStringLiteral("orin-nano-super"));
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
        // A kind given beforehand is kept: the sweep checks it against the hello.
        DeviceEndpoint given = fakeAgent(QStringLiteral("anything"));
        given.kind = QStringLiteral("orin-nx");
        QCOMPARE(withReportedKinds({given})->first().kind, QStringLiteral("orin-nx"));
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
            return new LocalProcessTransport(QStringLiteral("python3"),
                                             {QStringLiteral("-c"),
                                              QStringLiteral("import time; time.sleep(30)")},
                                             QStringLiteral("a silent agent"));
        });
        const Expected<DeviceInfo> info = probeDevice(silent, 1500);
        QVERIFY(!info);
        QVERIFY2(info.error().contains(QLatin1String("no hello within")), qPrintable(info.error()));
    }
};

QTEST_GUILESS_MAIN(TestDeviceProbe)
#include "test_deviceprobe.moc"
