// Find on device (Explore): the search runs on the simulated Jetson on the sweep thread, each
// profiled mode appears in the view as it is stored, and the answer ends up on the card, ready
// to apply; cancel leaves what was measured.
#include "budgetcontrols.h"
#include "devicesearchbar.h"
#include "explorepanel.h"
#include "recommendationcard.h"
#include "simulatorlauncher.h"
#include "storequery.h"
#include "sweepsession.h"
#include "tradeoffchart.h"

#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kTimeout = 120000;

}  // namespace

class TestDeviceSearch : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    workflows::DeviceEndpoint simulatedTarget(double speed = 200)
    {
        workflows::ConnectionOptions options;
        options.simulatorState = m_dir.filePath(QStringLiteral("sim-%1").arg(++m_runs));
        options.simulatorSpeed = speed;
        return workflows::endpoint(QStringLiteral("sim:orin-agx"), options).value();
    }

    // A store where resnet18 has a few measured modes on the simulated device, so Explore has
    // something to show and the device to search.
    QString seededDatabase(const workflows::DeviceEndpoint &device)
    {
        const QString db = m_dir.filePath(QStringLiteral("db-%1.sqlite").arg(++m_runs));
        SweepSession session;
        session.setDatabasePath(db);
        session.setDevice(device);
        QSignalSpy stopped(&session, &SweepSession::stopped);
        workflows::SweepRequest request;
        request.workload = QStringLiteral("resnet18");
        request.modeSet = QStringLiteral("random:3");
        request.minibatches = 12;
        request.seed = 7;  // the same three modes every run
        session.start(request);
        if (!stopped.wait(kTimeout))
            return QString();
        return db;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QVERIFY2(SimulatorLauncher::scriptDirectory().ok(),
                 qPrintable(SimulatorLauncher::scriptDirectory().error()));
    }

    void findOnDeviceShowsEachStepAndEndsOnTheCard()
    {
        const workflows::DeviceEndpoint device = simulatedTarget();
        const QString db = seededDatabase(device);
        QVERIFY(!db.isEmpty());
        ExplorePanel panel;
        panel.resize(1200, 760);
        panel.setDatabasePath(db);
        panel.setApplyDevice(device);
        const QString distinctModes = QStringLiteral(
            "SELECT count(DISTINCT cores || '/' || cpu_khz || '/' || gpu_hz || '/' || emc_hz) "
            "FROM measurements");
        const qint64 seeded = queryInt(db, distinctModes);
        QVERIFY(seeded >= 1);
        QTRY_VERIFY_WITH_TIMEOUT(panel.space() && panel.space()->observedCount() == seeded,
                                 kTimeout);
        QVERIFY(panel.findButton()->isEnabled());
        panel.budgets()->setPowerBudget(30);
        const double budget = panel.budgets()->powerBudgetW();

        QSignalSpy measured(panel.deviceSearch(), &DeviceSearchBar::measured);
        QSignalSpy found(panel.deviceSearch(), &DeviceSearchBar::found);
        panel.findButton()->click();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = panel.findChild<QMessageBox *>(QStringLiteral("searchConfirmBox"))));
        QVERIFY2(box->text().contains(QStringLiteral("within %1 W").arg(budget, 0, 'f', 1)),
                 qPrintable(box->text()));
        box->button(QMessageBox::Yes)->click();
        QTRY_VERIFY(panel.deviceSearch()->isRunning());
        QVERIFY(!panel.findButton()->isEnabled());  // one search at a time
        QVERIFY(found.wait(kTimeout));
        QVERIFY(measured.size() >= 5);  // the middle mode and the probes to each extreme
        QVERIFY(measured.size() <= 15);
        const PowerMode answer = found.at(0).at(0).value<PowerMode>();
        QVERIFY(found.at(0).at(1).toBool());
        // The view reloads with every measurement of the search and selects the answer.
        QTRY_VERIFY_WITH_TIMEOUT(
            panel.card()->titleText().startsWith(QStringLiteral("Found on the device")), kTimeout);
        const TradeoffSpace *space = panel.space();
        // Every stored mode is on the chart, the search's among them.
        QVERIFY(queryInt(db, distinctModes) > seeded);
        QCOMPARE(qint64(space->observedCount()), queryInt(db, distinctModes));
        const int index = panel.card()->index();
        QCOMPARE(space->mode(index), answer);
        QVERIFY(space->isObserved(index));
        QVERIFY(space->observedPowerW(index) <= budget);
        QCOMPARE(panel.chart()->selected(), index);
        QVERIFY(panel.card()->applyButton()->isEnabled());
        QVERIFY(panel.findButton()->isEnabled());
        QVERIFY(panel.deviceSearch()->statusText().contains(answer.toShort()));
    }

    void cancelKeepsWhatWasMeasured()
    {
        const workflows::DeviceEndpoint device = simulatedTarget(20);  // slow enough to cancel
        const QString db = seededDatabase(device);
        QVERIFY(!db.isEmpty());
        const qint64 seeded = queryInt(db, QStringLiteral("SELECT count(*) FROM measurements"));
        DeviceSearchBar bar;
        bar.setDatabasePath(db);
        bar.setDevice(device);
        QSignalSpy measured(&bar, &DeviceSearchBar::measured);
        QSignalSpy stopped(&bar, &DeviceSearchBar::stopped);
        QSignalSpy found(&bar, &DeviceSearchBar::found);
        bar.start(QStringLiteral("resnet18"), QString(), SearchGoal {QStringLiteral("gmd"), 30});
        QVERIFY(bar.isRunning());
        QVERIFY(measured.wait(kTimeout));
        bar.cancelButton()->click();
        QVERIFY(stopped.wait(kTimeout));
        QVERIFY2(stopped.at(0).at(0).toString().contains(QStringLiteral("cancelled")),
                 qPrintable(stopped.at(0).at(0).toString()));
        QCOMPARE(found.size(), 0);
        QVERIFY(!bar.isRunning());
        // Every mode it reported is stored, and nothing is left half-measured.
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM measurements")),
                 seeded + qint64(measured.size()));
        QCOMPARE(bar.cancelButton()->text(), QStringLiteral("Hide"));
    }
};

QTEST_MAIN(TestDeviceSearch)
#include "test_devicesearch.moc"
