#include "deviceclient.h"
#include "deviceendpoint.h"
#include "sshtransport.h"
#include "transport.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace ptwb;
using namespace ptwb::workflows;

// How both front ends reach a device: target text and options in, an endpoint out.
class TestDeviceEndpoint : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aSimulatedTargetIsStoredUnderItsOwnName()
    {
        const Expected<DeviceEndpoint> sim = endpoint(QStringLiteral("sim:orin-nano"), {});
        QVERIFY2(sim, qPrintable(sim.error()));
        QCOMPARE(sim->kind, QStringLiteral("orin-nano"));
        QVERIFY(sim->simulated);
        QCOMPARE(sim->storeName, QStringLiteral("simulated-orin-nano"));
        QCOMPARE(sim->storeName, simulatedStoreName(QStringLiteral("orin-nano")));
        QCOMPARE(sim->address, QStringLiteral("sim:orin-nano"));
        QVERIFY(sim->name.contains(QStringLiteral("simulated")));
        QVERIFY(sim->isValid());
    }

    void anSshTargetCarriesItsOptionsToTheTransport()
    {
        ConnectionOptions options;
        options.identityFiles = {QStringLiteral("/keys/id_lab")};
        options.knownHostsPath = QStringLiteral("/tmp/known");
        options.sshKind = QStringLiteral("xavier-agx");
        options.deviceName = QStringLiteral("lab xavier");
        const Expected<DeviceEndpoint> ssh =
            endpoint(QStringLiteral("ssh://nvidia@xavier.local:2222"), options);
        QVERIFY2(ssh, qPrintable(ssh.error()));
        QVERIFY(!ssh->simulated);
        QCOMPARE(ssh->kind, QStringLiteral("xavier-agx"));
        QCOMPARE(ssh->storeName, QStringLiteral("lab xavier"));
        QCOMPARE(ssh->address, QStringLiteral("ssh://nvidia@xavier.local:2222"));
        // Only builds the transport: nothing connects to xavier.local.
        Expected<Transport *> transport = ssh->connect();
        QVERIFY(transport);
        std::unique_ptr<Transport> owned(*transport);
        auto *sshTransport = qobject_cast<SshTransport *>(owned.get());
        QVERIFY(sshTransport);
        QCOMPARE(sshTransport->options().port, 2222);
        QCOMPARE(sshTransport->options().identityFiles.value(0), QStringLiteral("/keys/id_lab"));
        QCOMPARE(sshTransport->options().knownHostsPath, QStringLiteral("/tmp/known"));
    }

    void aRealDeviceWithoutANameIsStoredUnderItsKind()
    {
        ConnectionOptions options;
        options.sshKind = QStringLiteral("orin-agx");
        const Expected<DeviceEndpoint> ssh = endpoint(QStringLiteral("ssh://nvidia@orin"), options);
        QVERIFY(ssh);
        QCOMPARE(ssh->storeName, QStringLiteral("orin-agx"));
        options.remoteSimulatorKind = QStringLiteral("orin-agx");  // tests' simulator over SSH
        const Expected<DeviceEndpoint> remoteSim =
            endpoint(QStringLiteral("ssh://nvidia@127.0.0.1"), options);
        QVERIFY2(remoteSim, qPrintable(remoteSim.error()));
        QVERIFY(remoteSim->simulated);
        QCOMPARE(remoteSim->storeName, QStringLiteral("simulated-orin-agx"));
    }

    void badTargetsAreBadInputAboutTheTarget_data()
    {
        QTest::addColumn<QString>("target");
        QTest::newRow("scheme") << QStringLiteral("http://orin");
        QTest::newRow("kind") << QStringLiteral("sim:nonesuch");
        QTest::newRow("port") << QStringLiteral("ssh://nvidia@orin:99999");
        QTest::newRow("user") << QStringLiteral("ssh://-oProxyCommand=x@orin");
        QTest::newRow("password") << QStringLiteral("ssh://nvidia:secret@orin");
    }

    void badTargetsAreBadInputAboutTheTarget()
    {
        QFETCH(QString, target);
        const Expected<DeviceEndpoint> bad = endpoint(target, {});
        QVERIFY(!bad);
        QCOMPARE(bad.errorKind(), ErrorKind::BadInput);
        QCOMPARE(bad.field(), InputField::Target);
        QVERIFY2(!bad.error().contains(QStringLiteral("secret")), qPrintable(bad.error()));
    }

    void aFleetIsOfOneKindWithAStateDirectoryEach()
    {
        const Expected<QVector<DeviceEndpoint>> mixed =
            fleet({QStringLiteral("sim:orin-agx"), QStringLiteral("sim:orin-nano")}, {});
        QVERIFY(!mixed);
        QCOMPARE(mixed.field(), InputField::Target);
        QVERIFY2(mixed.error().contains(QStringLiteral("one kind")), qPrintable(mixed.error()));

        ConnectionOptions options;
        options.sshKind = QStringLiteral("orin-agx");
        const Expected<QVector<DeviceEndpoint>> mixedReality =
            fleet({QStringLiteral("sim:orin-agx"), QStringLiteral("ssh://nvidia@orin")}, options);
        QVERIFY(!mixedReality);  // simulated data never stored under a real device's name
        QCOMPARE(mixedReality.field(), InputField::Target);

        const Expected<QVector<DeviceEndpoint>> two =
            fleet({QStringLiteral("sim:orin-agx,sim:orin-agx")}, {});
        QVERIFY2(two, qPrintable(two.error()));
        QCOMPARE(two->size(), 2);
        QCOMPARE(two->at(0).address, QStringLiteral("sim:orin-agx#1"));
        QCOMPARE(two->at(1).address, QStringLiteral("sim:orin-agx#2"));
    }

    void aSimulatedEndpointConnectsToTheSimulator()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QTemporaryDir dir;
        ConnectionOptions options;
        options.simulatorState = dir.path();
        const Expected<DeviceEndpoint> sim = endpoint(QStringLiteral("sim:xavier-agx"), options);
        QVERIFY(sim);
        Expected<Transport *> transport = sim->connect();
        QVERIFY2(transport, qPrintable(transport.error()));
        DeviceClient client(*transport);
        QString kind;
        connect(&client, &DeviceClient::ready, this,
                [&kind](const DeviceInfo &info) { kind = info.kind; });
        client.connectToDevice();
        QTRY_COMPARE_WITH_TIMEOUT(kind, QStringLiteral("xavier-agx"), 30000);
    }
};

QTEST_GUILESS_MAIN(TestDeviceEndpoint)
#include "test_deviceendpoint.moc"
