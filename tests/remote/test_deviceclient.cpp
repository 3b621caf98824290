// DeviceClient against the real agent on the simulated Jetson, through the local transport:
// hello, apply + readback, profiling, and every injected fault detected and reported.
#include "deviceclient.h"
#include "localprocesstransport.h"
#include "modes/devicespec.h"
#include "remote/awaitreply.h"
#include "remote/simulateddevice.h"
#include "simulatorlauncher.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

using namespace ptwb;
using ptwb::test::orinMode;

class TestDeviceClient : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_state;

    // A client on a fresh simulated AGX Orin (state in its own directory), connected.
    std::unique_ptr<DeviceClient> connectSimulator(const QStringList &faults = {},
                                                   const QString &state = {})
    {
        SimulatorOptions options;
        options.stateDirectory = state.isEmpty()
            ? m_state.path() + QStringLiteral("/") + QString::number(++m_instances)
            : state;
        options.speed = 100;
        options.faults = faults;
        Expected<LocalProcessTransport *> transport = SimulatorLauncher::transport(options);
        if (!transport) {
            qWarning("%s", qPrintable(transport.error()));
            return nullptr;
        }
        auto client = std::make_unique<DeviceClient>(*transport);
        QSignalSpy ready(client.get(), &DeviceClient::ready);
        QSignalSpy gone(client.get(), &DeviceClient::disconnected);
        client->connectToDevice();
        if (!QTest::qWaitFor([&] { return ready.count() + gone.count() > 0; }, 30000) ||
            ready.isEmpty()) {
            qWarning("simulator did not come up: %s",
                     gone.isEmpty() ? "timeout" : qPrintable(gone.at(0).at(0).toString()));
            return nullptr;
        }
        return client;
    }
    int m_instances = 0;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_state.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QVERIFY2(SimulatorLauncher::scriptDirectory().ok(),
                 qPrintable(SimulatorLauncher::scriptDirectory().error()));
    }

    void helloDescribesASimulatedDevice()
    {
        auto client = connectSimulator();
        QVERIFY(client);
        const DeviceInfo &info = client->info();
        QVERIFY(info.simulated);
        QVERIFY2(info.model.contains(QLatin1String("(simulated)")), qPrintable(info.model));
        QCOMPARE(info.kind, QStringLiteral("orin-agx"));
        QVERIFY(!info.bootId.isEmpty());
        // The live tables are the device's own: the same as the offline table.
        const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
        QCOMPARE(info.cores.size(), 12);
        QCOMPARE(info.cpuKHz.size(), spec.values(Dimension::Cpu).size());
        QCOMPARE(info.gpuHz.constLast(), spec.values(Dimension::Gpu).constLast());
        QCOMPARE(info.emcHz.size(), 4);
        QVERIFY(!info.rails.isEmpty());
        QVERIFY(info.summary().contains(QLatin1String("simulated")));
    }

    void applyReadsBack()
    {
        auto client = connectSimulator();
        QVERIFY(client);
        for (const PowerMode &mode :
             {orinMode(4, 5, 2, 1), orinMode(12, 28, 12, 3), orinMode(1, 0, 0, 0)}) {
            const DeviceReply applied = awaitReply(client->applyMode(mode));
            QVERIFY2(applied.ok, qPrintable(applied.error.text()));
            QCOMPARE(modeFromJson(applied.result.value(QLatin1String("mode")).toObject(),
                                  QStringLiteral("mode"))
                         ->toCanonical(),
                     mode.toCanonical());
            const DeviceReply now = awaitReply(client->getMode());
            QVERIFY(now.ok);
            QCOMPARE(modeFromJson(now.result.value(QLatin1String("mode")).toObject(),
                                  QStringLiteral("mode"))
                         ->toCanonical(),
                     mode.toCanonical());
        }
    }

    void aModeTheDeviceLacksIsRefusedBeforeAnyWrite()
    {
        auto client = connectSimulator();
        QVERIFY(client);
        const QString before = client->info().mode.toCanonical();
        PowerMode bogus = orinMode(4, 5, 2, 1);
        bogus.gpuHz = 1300000000;
        const DeviceReply reply = awaitReply(client->applyMode(bogus));
        QVERIFY(!reply.ok);
        QCOMPARE(reply.error.code, QStringLiteral("no_such_mode"));
        QVERIFY2(reply.error.message.contains(QLatin1String("gpu_hz")),
                 qPrintable(reply.error.message));
        const DeviceReply now = awaitReply(client->getMode());
        QCOMPARE(
            modeFromJson(now.result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"))
                ->toCanonical(),
            before);
    }

    void profilesFiveModesPlausibly()
    {
        auto client = connectSimulator();
        QVERIFY(client);
        WorkloadSpec resnet;
        resnet.builtin = QStringLiteral("resnet18");
        resnet.batchSize = 16;
        // From slow and frugal to MAXN.
        const QVector<PowerMode> modes {orinMode(2, 3, 0, 0), orinMode(4, 10, 3, 1),
                                        orinMode(8, 18, 6, 2), orinMode(12, 24, 9, 3),
                                        orinMode(12, 28, 12, 3)};
        QVector<ProfileResult> results;
        for (const PowerMode &mode : modes) {
            const DeviceReply applied = awaitReply(client->applyMode(mode));
            QVERIFY2(applied.ok, qPrintable(applied.error.text()));
            // 80 minibatches: with 40, power had not settled on a 2-core machine under a load of
            // 10 (fewer power samples are taken in time when the sampler is starved).
            DeviceCall *call = client->profile(resnet, 80);
            QSignalSpy events(call, &DeviceCall::eventReceived);
            const DeviceReply reply = awaitReply(call, 120000);
            QVERIFY2(reply.ok, qPrintable(reply.error.text()));
            Expected<ProfileResult> result = ProfileResult::fromJson(reply.result);
            QVERIFY2(result, qPrintable(result.error()));
            QCOMPARE(result->mode.toCanonical(), mode.toCanonical());
            QVERIFY(result->minibatches >= 10);
            QVERIFY(result->discarded >= 1);  // at least the warm-up minibatch
            QVERIFY(result->timeMs.q1 <= result->timeMs.median &&
                    result->timeMs.median <= result->timeMs.q3);
            // Jetson AGX Orin training draws between a few and ~60 W; a ResNet-18 minibatch
            // takes tens of ms to a few seconds.
            QVERIFY2(result->powerW.median > 3 && result->powerW.median < 70,
                     qPrintable(QString::number(result->powerW.median)));
            QVERIFY2(result->timeMs.median > 10 && result->timeMs.median < 20000,
                     qPrintable(QString::number(result->timeMs.median)));
            int minibatchEvents = 0;
            for (const QList<QVariant> &event : events)
                minibatchEvents += event.at(0).toString() == QLatin1String("minibatch");
            QVERIFY(minibatchEvents >= result->minibatches);
            results.append(*result);
        }
        // Faster clocks: shorter minibatches and more power.
        QVERIFY(results.constLast().timeMs.median < results.constFirst().timeMs.median / 2);
        QVERIFY(results.constLast().powerW.median > results.constFirst().powerW.median * 1.5);
    }

    void unconfirmedModeRevertsByItself()
    {
        auto client = connectSimulator();
        QVERIFY(client);
        const QString before = client->info().mode.toCanonical();
        // 300 device seconds at speed 100: 3 s of wall time, ample for the apply to arrive
        // first (each goes through a helper process, as through sudo on a device).
        DeviceCall *arm = client->armRevert(300);
        QSignalSpy reverted(client.get(), &DeviceClient::unsolicitedEvent);
        QVERIFY(awaitReply(arm).ok);
        QVERIFY(awaitReply(client->applyMode(orinMode(2, 3, 1, 0))).ok);
        QTRY_VERIFY_WITH_TIMEOUT(!reverted.isEmpty(), 10000);
        QCOMPARE(reverted.at(0).at(0).toString(), QStringLiteral("reverted"));
        const DeviceReply now = awaitReply(client->getMode());
        QCOMPARE(
            modeFromJson(now.result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"))
                ->toCanonical(),
            before);

        // Confirmed in time (400 device seconds: 4 s of wall time): the mode stays.
        QVERIFY(awaitReply(client->armRevert(400)).ok);
        QVERIFY(awaitReply(client->applyMode(orinMode(2, 3, 1, 0))).ok);
        const DeviceReply confirmed = awaitReply(client->confirm());
        QVERIFY2(confirmed.ok, qPrintable(confirmed.error.text()));
        QTest::qWait(4500);  // past the deadline
        const DeviceReply kept = awaitReply(client->getMode());
        QCOMPARE(modeFromJson(kept.result.value(QLatin1String("mode")).toObject(),
                              QStringLiteral("mode"))
                     ->toCanonical(),
                 orinMode(2, 3, 1, 0).toCanonical());
        QCOMPARE(reverted.count(), 1);
    }

    void rejectedFrequencyIsReported()
    {
        const PowerMode maxn = orinMode(12, 28, 12, 3);
        auto client =
            connectSimulator({QStringLiteral("reject:gpu_hz=%1").arg(orinMode(1, 0, 6, 0).gpuHz)});
        QVERIFY(client);
        const DeviceReply reply = awaitReply(client->applyMode(orinMode(8, 10, 6, 2)));
        QVERIFY(!reply.ok);
        QVERIFY2(reply.error.code == QLatin1String("write_failed") ||
                     reply.error.code == QLatin1String("readback_mismatch"),
                 qPrintable(reply.error.text()));
        QVERIFY2(reply.error.message.contains(QLatin1String("gpu")),
                 qPrintable(reply.error.message));
        // Not left part-way: the mode before the attempt is back.
        const DeviceReply now = awaitReply(client->getMode());
        QCOMPARE(
            modeFromJson(now.result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"))
                ->toCanonical(),
            client->info().mode.toCanonical());
        // Other modes still apply.
        QVERIFY(awaitReply(client->applyMode(maxn)).ok);
    }

    void throttlingShowsInTheReadback()
    {
        auto client = connectSimulator({QStringLiteral("throttle:0.8")});
        QVERIFY(client);
        const PowerMode maxn = orinMode(12, 28, 12, 3);
        const DeviceReply reply = awaitReply(client->applyMode(maxn));
        QVERIFY(!reply.ok);
        QCOMPARE(reply.error.code, QStringLiteral("readback_mismatch"));
        Expected<PowerMode> readback =
            modeFromJson(reply.error.details.value(QLatin1String("readback")).toObject(),
                         QStringLiteral("readback"));
        QVERIFY2(readback, qPrintable(readback.error()));
        QVERIFY(readback->gpuHz < maxn.gpuHz);
        QVERIFY(readback->gpuHz <= 0.8 * maxn.gpuHz + 1);
    }

    void droppedConnectionFailsCallsInFlight()
    {
        // hello is request 1; the drop comes on request 3.
        auto client = connectSimulator({QStringLiteral("drop-after:3")});
        QVERIFY(client);
        QSignalSpy gone(client.get(), &DeviceClient::disconnected);
        QVERIFY(awaitReply(client->getMode()).ok);
        const DeviceReply reply = awaitReply(client->getMode());
        QVERIFY(!reply.ok);
        QCOMPARE(reply.error.code, QStringLiteral("disconnected"));
        QTRY_COMPARE(gone.count(), 1);
        QVERIFY(!client->isReady());
        // Later calls fail at once instead of hanging.
        QCOMPARE(awaitReply(client->getMode()).error.code, QStringLiteral("disconnected"));
    }

    void rebootChangesTheBootIdAndResetsTheMode()
    {
        const QString state = m_state.path() + QStringLiteral("/reboot");
        auto client = connectSimulator({QStringLiteral("reboot-after:3")}, state);
        QVERIFY(client);
        const QString bootId = client->info().bootId;
        QVERIFY(awaitReply(client->applyMode(orinMode(4, 5, 2, 1))).ok);
        QSignalSpy gone(client.get(), &DeviceClient::disconnected);
        QCOMPARE(awaitReply(client->getMode()).error.code, QStringLiteral("disconnected"));
        QTRY_COMPARE(gone.count(), 1);

        auto again = connectSimulator({}, state);
        QVERIFY(again);
        QVERIFY(again->info().bootId != bootId);
        QCOMPARE(again->info().mode.toCanonical(), orinMode(12, 28, 12, 3).toCanonical());
    }

    void silentAgentTimesOut()
    {
        auto *transport = new LocalProcessTransport(
            QStringLiteral("python3"),
            {QStringLiteral("-c"), QStringLiteral("import sys; sys.stdin.read()")},
            QStringLiteral("silent"));
        DeviceClient client(transport);
        QSignalSpy opened(transport, &Transport::opened);
        transport->open();
        QTRY_COMPARE(opened.count(), 1);
        const DeviceReply reply =
            awaitReply(client.call(QStringLiteral("get_mode"), {}, 300), 10000);
        QCOMPARE(reply.error.code, QStringLiteral("timeout"));
        QVERIFY(reply.error.message.contains(QLatin1String("get_mode")));
    }

    void garbageFromTheAgentIsAWarningNotACrash()
    {
        auto *transport = new LocalProcessTransport(
            QStringLiteral("python3"),
            {QStringLiteral("-c"),
             QStringLiteral("print('garbage'); print('{\"id\": 99, \"ok\": true}'); "
                            "import sys; sys.stdin.read()")},
            QStringLiteral("garbage"));
        DeviceClient client(transport);
        QSignalSpy warnings(&client, &DeviceClient::protocolWarning);
        transport->open();
        QTRY_COMPARE(warnings.count(), 2);
        QVERIFY(warnings.at(0).at(0).toString().contains(QLatin1String("garbage")));
        QVERIFY(warnings.at(1).at(0).toString().contains(QLatin1String("no request")));
    }

    void agentThatDiesSaysWhy()
    {
        auto *transport = new LocalProcessTransport(
            QStringLiteral("python3"),
            {QStringLiteral("-c"),
             QStringLiteral("import sys; sys.stderr.write('agent: cannot read /sys\\n'); "
                            "sys.exit(3)")},
            QStringLiteral("dying"));
        DeviceClient client(transport);
        QSignalSpy gone(&client, &DeviceClient::disconnected);
        client.connectToDevice();
        QTRY_COMPARE(gone.count(), 1);
        const QString reason = gone.at(0).at(0).toString();
        QVERIFY2(reason.contains(QLatin1String("code 3")) &&
                     reason.contains(QLatin1String("cannot read /sys")),
                 qPrintable(reason));
    }
};

QTEST_GUILESS_MAIN(TestDeviceClient)
#include "test_deviceclient.moc"
