// ModeApplier against the real agent on a simulated AGX Orin running at real speed (the armed
// revert's deadline is in device seconds): confirmed, cancelled, and unconfirmable applies, and
// on a device that accepts lower clocks only until a reboot, applies by reboot.
#include "modeapplier.h"
#include "remote/simulateddevice.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace ptwb;
using ptwb::test::orinMode;

class TestModeApplier : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_root;
    std::unique_ptr<test::SimulatedDevice> m_device;

    ModeApplier::Connect connector() { return m_device->connector(); }
    QString deviceMode() { return m_device->mode(); }

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
        m_device = std::make_unique<test::SimulatedDevice>(
            m_root.path() + QStringLiteral("/device-") + QString::number(++instance));
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
        m_device->failAfter(1);  // the first connection applies; every later one fails
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

    // A device that accepts lower clocks only until a reboot, put in a low mode first (every
    // clock below MAXN), so that `raise` needs a reboot.
    void useDecreasingOnlyDevice(const QString &name)
    {
        m_device = std::make_unique<test::SimulatedDevice>(
            m_root.path() + QLatin1Char('/') + name,
            QStringList {QStringLiteral("decreasing-only")});
        Expected<Transport *> transport = connector()();
        QVERIFY(transport);
        DeviceClient client(*transport);
        QSignalSpy ready(&client, &DeviceClient::ready);
        client.connectToDevice();
        QVERIFY(ready.wait(20000));
        QVERIFY(client.info().decreasingOnly());
        QSignalSpy applied(client.applyMode(orinMode(4, 5, 2, 1)), &DeviceCall::finished);
        QVERIFY(applied.wait(20000));
        QVERIFY(applied.at(0).at(0).value<DeviceReply>().ok);
    }

    static ModeApplier::Options byReboot(int keepAfter)
    {
        ModeApplier::Options options = quick(keepAfter);
        options.allowReboot = true;
        options.rebootWaitSeconds = 5;  // the simulated reboot is at once
        return options;
    }

    void decreasingOnlyDeviceTakesALowerModeTheUsualWay()
    {
        useDecreasingOnlyDevice(QStringLiteral("lower"));
        const PowerMode target = orinMode(2, 3, 1, 0);  // lower in every clock
        ModeApplier applier(connector(), quick(1));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        applier.start(target);
        QVERIFY(finished.wait(30000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QVERIFY(!applier.needsReboot());
        QCOMPARE(deviceMode(), target.toCanonical());
    }

    void raiseOnADecreasingOnlyDeviceAsksForAReboot()
    {
        useDecreasingOnlyDevice(QStringLiteral("refused"));
        const QString before = deviceMode();
        ModeApplier applier(connector(), quick(1));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        applier.start(orinMode(8, 20, 6, 2));
        QVERIFY(finished.wait(30000));
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY(applier.needsReboot());
        QVERIFY2(finished.at(0).at(1).toString().contains(QLatin1String("by reboot")),
                 qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(deviceMode(), before);
    }

    void raiseByRebootConfirmedIsKept()
    {
        useDecreasingOnlyDevice(QStringLiteral("by-reboot"));
        const QString before = deviceMode();
        const PowerMode target = orinMode(8, 20, 6, 2);
        ModeApplier applier(connector(), byReboot(1));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        QSignalSpy phases(&applier, &ModeApplier::phaseChanged);
        applier.start(target);
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(applier.previousMode().toCanonical(), before);
        bool rebooted = false;
        for (const QList<QVariant> &phase : std::as_const(phases))
            rebooted |= phase.at(0).value<ModeApplier::Phase>() == ModeApplier::Phase::Rebooting;
        QVERIFY(rebooted);
        QCOMPARE(deviceMode(), target.toCanonical());
        // Past the deadline armed at boot (5 + 1 + 3 device seconds): still there, confirmed.
        QTest::qWait(9500);
        QCOMPARE(deviceMode(), target.toCanonical());
    }

    void raiseByRebootNotConfirmedRebootsBack()
    {
        useDecreasingOnlyDevice(QStringLiteral("by-reboot-cancelled"));
        const QString before = deviceMode();
        ModeApplier applier(connector(), byReboot(3));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        applier.start(orinMode(8, 20, 6, 2));
        QTRY_VERIFY_WITH_TIMEOUT(applier.phase() == ModeApplier::Phase::CountingDown, 60000);
        QCOMPARE(deviceMode(), orinMode(8, 20, 6, 2).toCanonical());
        applier.cancel();
        QCOMPARE(finished.size(), 1);
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY2(finished.at(0).at(1).toString().contains(QLatin1String("reboots back")),
                 qPrintable(finished.at(0).at(1).toString()));
        // The device's helper does it at the deadline (a raise: with another reboot).
        QTRY_COMPARE_WITH_TIMEOUT(deviceMode(), before, 40000);
    }

    void refusedConnectionReportsWhy()
    {
        m_device->failAfter(0);
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
