// ModeApplier against the real agent on a simulated AGX Orin running at real speed (the armed
// revert's deadline is in device seconds): confirmed, cancelled, and unconfirmable applies.
#include "localprocesstransport.h"
#include "modeapplier.h"
#include "modes/devicespec.h"
#include "remote/awaitreply.h"
#include "simulatorlauncher.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

namespace {

PowerMode orinMode(int cores, int cpuIndex, int gpuIndex, int emcIndex)
{
    const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
    PowerMode mode;
    mode.cores = cores;
    mode.cpuKHz = spec.values(Dimension::Cpu).at(cpuIndex);
    mode.gpuHz = spec.values(Dimension::Gpu).at(gpuIndex);
    mode.emcHz = spec.values(Dimension::Emc).at(emcIndex);
    return mode;
}

}  // namespace

class TestModeApplier : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_root;
    QString m_state;
    int m_connections = 0;
    int m_failAfter = -1;  // connections allowed before the "network" is cut; -1: never

    ModeApplier::Connect connector()
    {
        return [this]() -> Expected<Transport *> {
            if (m_failAfter >= 0 && m_connections >= m_failAfter)
                return Expected<Transport *>::failure(QStringLiteral("no route to host (test)"));
            ++m_connections;
            SimulatorOptions options;
            options.stateDirectory = m_state;
            options.speed = 1;
            Expected<LocalProcessTransport *> t = SimulatorLauncher::transport(options);
            if (!t)
                return Expected<Transport *>::failure(t.error());
            return static_cast<Transport *>(*t);
        };
    }

    // The mode the device runs now, over a connection of its own.
    QString deviceMode()
    {
        const int failAfter = m_failAfter;
        m_failAfter = -1;
        Expected<Transport *> t = connector()();
        m_failAfter = failAfter;
        if (!t)
            return t.error();
        DeviceClient client(*t);
        QSignalSpy ready(&client, &DeviceClient::ready);
        client.connectToDevice();
        if (!ready.wait(20000))
            return QStringLiteral("unreachable");
        return client.info().mode.toCanonical();
    }

    static ModeApplier::Options quick(int keepAfter)
    {
        ModeApplier::Options options;
        options.keepAfterSeconds = keepAfter;
        options.revertMarginSeconds = 3;
        return options;
    }

private Q_SLOTS:
    void init()
    {
        static int instance = 0;
        m_state = m_root.path() + QStringLiteral("/device-") + QString::number(++instance);
        m_connections = 0;
        m_failAfter = -1;
    }

    void confirmedModeIsKept()
    {
        const QString before = deviceMode();
        const PowerMode target = orinMode(8, 20, 6, 2);
        ModeApplier applier(connector(), quick(1));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        QSignalSpy countdown(&applier, &ModeApplier::countdown);
        applier.start(target);
        QVERIFY(finished.wait(30000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QVERIFY(!countdown.isEmpty());
        QCOMPARE(applier.previousMode().toCanonical(), before);
        // Past the armed deadline the device still runs it: the revert was disarmed.
        QTest::qWait(4500);
        QCOMPARE(deviceMode(), target.toCanonical());
    }

    void cancelledDuringTheCountdownGoesBack()
    {
        const QString before = deviceMode();
        ModeApplier applier(connector(), quick(30));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        applier.start(orinMode(4, 10, 3, 1));
        QTRY_VERIFY_WITH_TIMEOUT(applier.phase() == ModeApplier::Phase::CountingDown, 30000);
        applier.cancel();
        QVERIFY(finished.wait(20000));
        QVERIFY(!finished.at(0).at(0).toBool());
        QCOMPARE(deviceMode(), before);
    }

    void unconfirmableModeRevertsByItself()
    {
        const QString before = deviceMode();
        m_connections = 0;
        m_failAfter = 1;  // the first connection applies; every later one fails
        ModeApplier applier(connector(), quick(1));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        applier.start(orinMode(6, 15, 4, 2));
        QTRY_VERIFY_WITH_TIMEOUT(applier.phase() == ModeApplier::Phase::WaitingForRevert, 30000);
        QVERIFY(finished.wait(30000));
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY2(finished.at(0).at(1).toString().contains(QStringLiteral("by itself")),
                 qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(deviceMode(), before);
    }

    void refusedConnectionReportsWhy()
    {
        m_failAfter = 0;
        ModeApplier applier(connector(), quick(1));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        applier.start(orinMode(6, 15, 4, 2));
        QCOMPARE(finished.size(), 1);
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY(finished.at(0).at(1).toString().contains(QStringLiteral("no route to host")));
    }
};

QTEST_GUILESS_MAIN(TestModeApplier)
#include "test_modeapplier.moc"
