// Explore's concurrent mode, Verify on device: with a store holding the synthetic pair and the
// simulated Jetson connected, the dialog runs workflows::startVerification on the device; the
// table's measured training throughput follows the formula with the run's own tT and tI, the
// measured p99 stays within b/λ + tI + tT, and cancelling (or closing the dialog) mid-run
// leaves the device in its previous mode.
#include "concurrent/syntheticpair.h"
#include "concurrentcard.h"
#include "concurrentcontrols.h"
#include "concurrentexplorer.h"
#include "concurrentverifydialog.h"
#include "concurrentverifytable.h"
#include "deviceclient.h"
#include "explorepanel.h"
#include "store/store.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEventLoop>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <cmath>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

const QString kTrain = QStringLiteral("trainer");
const QString kInfer = QStringLiteral("server");

// The first number of a cell ("12.50 (n=5)" is 12.5); NaN when empty.
double number(const ConcurrentVerifyTable *table, ConcurrentVerifyTable::Row row,
              ConcurrentVerifyTable::Column column)
{
    bool ok = false;
    const double v = table->text(row, column).section(QLatin1Char(' '), 0, 0).toDouble(&ok);
    return ok ? v : qQNaN();
}

}  // namespace

class TestConcurrentVerifyDialog : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_root;
    QString m_db;
    int m_runs = 0;
    workflows::DeviceEndpoint m_device;

    // The simulated Jetson at 10 device seconds per wall second, and the mode it runs now, asked
    // over a connection of the test's own through the same endpoint.
    PowerMode currentMode()
    {
        Expected<Transport *> transport = m_device.connect();
        if (!transport)
            return {};
        DeviceClient client(*transport);
        QEventLoop loop;
        PowerMode mode;
        connect(&client, &DeviceClient::ready, &loop, [&](const DeviceInfo &info) {
            mode = info.mode;
            loop.quit();
        });
        connect(&client, &DeviceClient::disconnected, &loop, &QEventLoop::quit);
        QTimer::singleShot(30000, &loop, &QEventLoop::quit);
        client.connectToDevice();
        loop.exec();
        return mode;
    }

    // Explore in its concurrent mode on the store, the device connected, Verify clicked.
    ConcurrentVerifyDialog *openDialog(ExplorePanel &panel, double powerBudgetW = 40)
    {
        panel.resize(1400, 860);
        panel.setDatabasePath(m_db);
        panel.setMode(ExplorePanel::Mode::Concurrent);
        ConcurrentExplorer *c = panel.concurrent();
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(c->trainingCombo()->count() > 0, 20000);
            QVERIFY(c->chooseWorkloads(kTrain, kInfer));
            QTRY_VERIFY_WITH_TIMEOUT(!c->isLoading() && c->space(), 60000);
        }();
        if (!c->space())
            return nullptr;
        // Long cycles: several training minibatches between inference batches.
        c->controls()->setArrivalRate(30);
        c->controls()->setLatencyBudget(2.0);
        c->controls()->setPowerBudget(powerBudgetW);
        if (c->card()->pair() < 0 || c->card()->verifyButton()->isEnabled())
            return nullptr;  // not before a device is connected
        panel.setApplyDevice(m_device);
        if (!c->card()->verifyButton()->isEnabled())
            return nullptr;
        c->card()->verifyButton()->click();
        ConcurrentVerifyDialog *dialog = nullptr;
        (void)QTest::qWaitFor(
            [&] {
                return (dialog = panel.findChild<ConcurrentVerifyDialog *>(
                            QStringLiteral("concurrentVerifyDialog")));
            },
            5000);
        return dialog;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(m_root.isValid());
        m_db = m_root.filePath(QStringLiteral("pair.sqlite"));
        QVERIFY(storeSyntheticPair(m_db, kTrain, kInfer));
    }

    void init()
    {
        workflows::ConnectionOptions options;
        options.simulatorState = m_root.filePath(QStringLiteral("sim-%1").arg(++m_runs));
        options.simulatorSpeed = 10;
        Expected<workflows::DeviceEndpoint> device =
            workflows::endpoint(QStringLiteral("sim:orin-agx"), options);
        QVERIFY2(device, qPrintable(device.error()));
        m_device = *device;
        m_device.name = QStringLiteral("Simulated Jetson AGX Orin (test)");
    }

    void runFillsTheTableLikeTheFormulas()
    {
        ExplorePanel panel;
        ConcurrentVerifyDialog *dialog = openDialog(panel);
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        // The store's names match no built-in: the first is preselected.
        QCOMPARE(dialog->trainingCombo()->currentText(), QStringLiteral("resnet18"));
        QCOMPARE(dialog->durationSpin()->value(), 60);
        QVERIFY(!dialog->keepCheck()->isChecked());
        QVERIFY(dialog->trainingCombo()->toolTip().contains(QStringLiteral("stand-ins")));
        ConcurrentVerifyTable *table = dialog->table();
        // The prediction and the budgets are there before the run.
        QVERIFY(!table->text(ConcurrentVerifyTable::Training, ConcurrentVerifyTable::Predicted)
                     .isEmpty());
        QCOMPARE(
            number(table, ConcurrentVerifyTable::LatencyP99, ConcurrentVerifyTable::BudgetColumn),
            2000.0);
        dialog->inferenceCombo()->setCurrentText(QStringLiteral("mobilenet_v3"));
        dialog->durationSpin()->setValue(30);
        const PowerMode before = currentMode();
        QSignalSpy finished(dialog, &ConcurrentVerifyDialog::runFinished);
        int progressShown = 0;
        connect(table, &QTableWidget::itemChanged, this, [&](QTableWidgetItem *item) {
            if (item->column() == ConcurrentVerifyTable::Measured && !item->text().isEmpty())
                ++progressShown;
        });
        dialog->startButton()->click();
        QVERIFY(dialog->isRunning());
        QVERIFY(dialog->cancelButton()->isVisible());
        QVERIFY(finished.wait(90000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(dialog->outcomeText()));
        QVERIFY(progressShown > 0);
        using T = ConcurrentVerifyTable;
        const double measured = number(table, T::Training, T::Measured);
        const double formula = number(table, T::Training, T::Formula);
        QVERIFY2(formula > 0, qPrintable(table->text(T::Training, T::Formula)));
        QVERIFY2(std::abs(measured - formula) <= 0.10 * formula,
                 qPrintable(QStringLiteral("training %1/s measured, formula %2")
                                .arg(measured)
                                .arg(table->text(T::Training, T::Formula))));
        const double tT = number(table, T::TrainTime, T::Measured);
        const double tI = number(table, T::InferTime, T::Measured);
        const double p99 = number(table, T::LatencyP99, T::Measured);
        const ConcurrentSpace *space = panel.concurrent()->space();
        const int b = space->data().batchOf(panel.concurrent()->card()->pair());
        const double limitMs = 1000.0 * b / 30 + tI + tT;
        QVERIFY2(
            p99 <= limitMs,
            qPrintable(QStringLiteral("p99 %1 ms, b/λ + tI + tT = %2 ms").arg(p99).arg(limitMs)));
        qInfo("b = %d at 30/s: training %.2f/s measured, %s by the formula; p99 %.1f ms within "
              "b/λ + tI + tT = %.1f ms",
              b, measured, qPrintable(table->text(T::Training, T::Formula)), p99, limitMs);
        const QString outcome = dialog->outcomeText();
        QVERIFY2(outcome.contains(QStringLiteral("Latency budget")) &&
                     outcome.contains(QStringLiteral("Power budget")),
                 qPrintable(outcome));
        QVERIFY2(outcome.contains(QStringLiteral("back in %1").arg(before.toShort())),
                 qPrintable(outcome));
        QCOMPARE(currentMode(), before);
        dialog->reject();
        QTRY_VERIFY(!panel.findChild<ConcurrentVerifyDialog *>());
    }

    void cancelRestoresThePreviousMode_data()
    {
        QTest::addColumn<bool>("close");
        QTest::newRow("Cancel run") << false;
        QTest::newRow("closing the dialog") << true;
    }

    void cancelRestoresThePreviousMode()
    {
        QFETCH(bool, close);
        ExplorePanel panel;
        // Under 25 W: the pick is not the device's MAXN.
        ConcurrentVerifyDialog *dialog = openDialog(panel, 25);
        QVERIFY(dialog);
        const PowerMode before = currentMode();
        QVERIFY(before.cores > 0);
        // The pick is another mode, so the run changes the device's mode.
        const ConcurrentSpace *space = panel.concurrent()->space();
        QVERIFY(space->data().modes[space->data().modeOf(panel.concurrent()->card()->pair())] !=
                before);
        dialog->durationSpin()->setValue(3000);
        QSignalSpy finished(dialog, &ConcurrentVerifyDialog::runFinished);
        dialog->startButton()->click();
        // Mid-run: the first measurements are on screen.
        QTRY_VERIFY_WITH_TIMEOUT(
            !dialog->table()
                 ->text(ConcurrentVerifyTable::Training, ConcurrentVerifyTable::Measured)
                 .isEmpty(),
            60000);
        QVERIFY(dialog->isRunning());
        if (close)
            dialog->reject();
        else
            dialog->cancelButton()->click();
        QVERIFY2(dialog->phaseText().contains(QStringLiteral("restoring the previous mode")),
                 qPrintable(dialog->phaseText()));
        QVERIFY(dialog->isVisible());  // until the device is back
        QVERIFY(finished.wait(60000));
        QVERIFY(!finished.at(0).at(0).toBool());
        if (close) {
            QTRY_VERIFY(!panel.findChild<ConcurrentVerifyDialog *>());
        } else {
            QVERIFY2(dialog->outcomeText().contains(QStringLiteral("previous mode")),
                     qPrintable(dialog->outcomeText()));
        }
        QCOMPARE(currentMode(), before);
    }
};

QTEST_MAIN(TestConcurrentVerifyDialog)
#include "test_concurrentverifydialog.moc"
