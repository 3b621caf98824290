// ModeApplier against the real agent on a simulated AGX Orin running at real speed (the armed
// revert's deadline is in device seconds): confirmed, cancelled, and unconfirmable applies.
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

    void decreasingOnlyDeviceIsLeftAlone()
    {
        m_device = std::make_unique<test::SimulatedDevice>(
            m_root.path() + QStringLiteral("/decreasing"),
            QStringList {QStringLiteral("decreasing-only")});
        const QString before = deviceMode();
        ModeApplier applier(connector(), quick(1));
        QSignalSpy finished(&applier, &ModeApplier::finished);
        applier.start(orinMode(6, 15, 4, 2));  // lower in every clock: yet not revertible
        QVERIFY(finished.wait(30000));
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY2(finished.at(0).at(1).toString().contains(QStringLiteral("decreasing")),
                 qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(deviceMode(), before);
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
