// Explore's concurrent mode on a real store: the pick is what core's ConcurrentSpace::choose
// picks from the space of workflows::loadConcurrentSpace (the function behind ptwb
// recommend-concurrent), the chart's feasible and infeasible points are assessPair's, a power
// budget below every pair says nothing fits, and Apply sends the pick's mode to the simulated
// Jetson.
#include "concurrent/syntheticpair.h"
#include "concurrentcard.h"
#include "concurrentchart.h"
#include "concurrentcontrols.h"
#include "concurrentexplorer.h"
#include "concurrentstudy.h"
#include "explorepanel.h"
#include "remote/simulateddevice.h"
#include "store/importer.h"
#include "store/store.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

const QString kTrain = QStringLiteral("trainer");
const QString kInfer = QStringLiteral("server");

ConcurrentSpace loadDirectly(const QString &path, const QString &train, const QString &infer)
{
    auto store = Store::open(path);
    return workflows::loadConcurrentSpace(**store, QString(), train, infer).value();
}

}  // namespace

class TestConcurrentExplorer : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_root;
    QString m_db;

    // A panel on the store, switched to the concurrent mode, once its space is shown.
    void openConcurrent(ExplorePanel &panel, const QString &db, const QString &train,
                        const QString &infer)
    {
        panel.resize(1400, 860);
        panel.setDatabasePath(db);
        panel.setMode(ExplorePanel::Mode::Concurrent);
        ConcurrentExplorer *c = panel.concurrent();
        QTRY_VERIFY_WITH_TIMEOUT(c->trainingCombo()->count() > 0, 20000);
        QVERIFY(c->chooseWorkloads(train, infer));
        QTRY_VERIFY_WITH_TIMEOUT(!c->isLoading() && c->space(), 60000);
    }

    static void checkPickIsCores(ConcurrentExplorer *c, const ConcurrentSpace &direct)
    {
        const ConcurrentProblem problem = c->controls()->problem();
        const double sigmas = c->controls()->sigmas();
        const ConcurrentSpace::Choice expected = direct.choose(problem, sigmas);
        QCOMPARE(c->card()->pair(), expected.pair);
        QCOMPARE(c->chart()->pick(), expected.pair);
        if (expected.pair >= 0) {
            const QString body = c->card()->bodyText();
            const ConcurrentData &data = direct.data();
            QVERIFY2(body.contains(data.modes[data.modeOf(expected.pair)].toShort()),
                     qPrintable(body));
            QVERIFY2(body.contains(QStringLiteral("b = %1").arg(data.batchOf(expected.pair))),
                     qPrintable(body));
            QVERIFY2(body.contains(QString::number(expected.outcome.throughput, 'f', 2)),
                     qPrintable(body));
        }
    }

    // The chart's layers hold exactly the pairs assessPair judges feasible or not.
    static void checkChartMatchesAssessPair(ConcurrentExplorer *c)
    {
        const ConcurrentSpace &space = *c->space();
        const ConcurrentProblem problem = c->controls()->problem();
        const double sigmas = c->controls()->sigmas();
        int feasibleMeasured = 0, feasiblePredicted = 0, infeasibleMeasured = 0,
            infeasiblePredicted = 0;
        for (int pair = 0; pair < space.pairCount(); ++pair) {
            const bool feasible = space.assessPair(problem, pair, sigmas).feasible();
            const bool measured = space.isMeasured(pair);
            (feasible ? (measured ? feasibleMeasured : feasiblePredicted)
                      : (measured ? infeasibleMeasured : infeasiblePredicted))++;
        }
        using L = ConcurrentChart::Layer;
        QCOMPARE(c->chart()->points(L::FeasibleMeasured).size(), feasibleMeasured);
        QCOMPARE(c->chart()->points(L::FeasiblePredicted).size(), feasiblePredicted);
        QCOMPARE(c->chart()->points(L::InfeasibleMeasured).size(), infeasibleMeasured);
        QCOMPARE(c->chart()->points(L::InfeasiblePredicted).size(), infeasiblePredicted);
        for (const ChartPoint &p : c->chart()->points(L::FeasibleMeasured))
            QVERIFY(space.assessPair(problem, p.mode, sigmas).feasible());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        m_db = m_root.filePath(QStringLiteral("pair.sqlite"));
        QVERIFY(storeSyntheticPair(m_db, kTrain, kInfer));
    }

    void pickIsWhatCoreChooses()
    {
        ExplorePanel panel;
        openConcurrent(panel, m_db, kTrain, kInfer);
        ConcurrentExplorer *c = panel.concurrent();
        const ConcurrentSpace direct = loadDirectly(m_db, kTrain, kInfer);
        QCOMPARE(c->space()->pairCount(), direct.pairCount());
        QCOMPARE(c->space()->measuredPairs(), direct.pairCount());
        ConcurrentControls *controls = c->controls();
        const struct
        {
            double rate, latency, power;
        } problems[] = {{60, 1.0, 25}, {30, 0.5, 20}, {120, 2.0, 40}, {90, 0.3, 15}};
        for (const auto &p : problems) {
            controls->setArrivalRate(p.rate);
            controls->setLatencyBudget(p.latency);
            controls->setPowerBudget(p.power);
            QCOMPARE(controls->problem().arrivalRate, p.rate);
            checkPickIsCores(c, direct);
            checkChartMatchesAssessPair(c);
        }
        // The latency slider moved by hand, and the safe pick (no spread on measured pairs).
        controls->setPowerBudget(30);
        for (int position : {20, 60, 150, 300}) {
            controls->latencySlider()->setValue(position);
            checkPickIsCores(c, direct);
        }
        controls->safeSwitch()->setChecked(true);
        QVERIFY(controls->sigmas() > 0);
        checkPickIsCores(c, direct);
        controls->safeSwitch()->setChecked(false);
    }

    void powerBelowEveryPairSaysNothing()
    {
        ExplorePanel panel;
        openConcurrent(panel, m_db, kTrain, kInfer);
        ConcurrentExplorer *c = panel.concurrent();
        c->controls()->setLatencyBudget(1.0);
        QSlider *power = c->controls()->powerSlider();
        power->setValue(power->maximum());
        QVERIFY(c->card()->pair() >= 0);
        QVERIFY(c->card()->applyButton()->text().contains(QStringLiteral("Apply")));
        power->setValue(power->minimum());
        QCOMPARE(c->card()->pair(), -1);
        QCOMPARE(c->card()->titleText(),
                 QStringLiteral("Nothing is predicted to meet these budgets"));
        QVERIFY(!c->card()->applyButton()->isEnabled());
        using L = ConcurrentChart::Layer;
        QVERIFY(c->chart()->points(L::FeasibleMeasured).isEmpty());
        QCOMPARE(c->chart()->points(L::InfeasibleMeasured).size(), c->space()->pairCount());
        QCOMPARE(c->chart()->pick(), -1);
    }

    void modeIsRememberedAndCtrlMSwitches()
    {
        {
            ExplorePanel panel;
            panel.setMode(ExplorePanel::Mode::Concurrent);
        }
        ExplorePanel panel;
        QCOMPARE(panel.mode(), ExplorePanel::Mode::Concurrent);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.activateWindow();
        panel.setFocus();
        // Ctrl+M steps to the next mode: concurrent, batch size, training only, concurrent.
        QTest::keyClick(&panel, Qt::Key_M, Qt::ControlModifier);
        QCOMPARE(panel.mode(), ExplorePanel::Mode::Batch);
        QTest::keyClick(&panel, Qt::Key_M, Qt::ControlModifier);
        QCOMPARE(panel.mode(), ExplorePanel::Mode::Training);
        QTest::keyClick(&panel, Qt::Key_M, Qt::ControlModifier);
        QCOMPARE(panel.mode(), ExplorePanel::Mode::Concurrent);
        // The budgets are remembered too.
        panel.concurrent()->controls()->setArrivalRate(42);
        ConcurrentControls fresh;
        QCOMPARE(fresh.problem().arrivalRate, 42.0);
        panel.concurrent()->controls()->setArrivalRate(60);
    }

    void exportsThePairsAndTheChart()
    {
        ExplorePanel panel;
        openConcurrent(panel, m_db, kTrain, kInfer);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ConcurrentExplorer *c = panel.concurrent();
        c->controls()->setArrivalRate(60);
        c->controls()->setLatencyBudget(1.0);
        c->controls()->setPowerBudget(30);
        const QByteArray csv = c->pairsCsv();
        QCOMPARE(csv.count('\n'), c->space()->pairCount() + 1);
        QVERIFY(csv.startsWith("cores,cpu,gpu,mem,mode,bs,"));
        for (const QString &name : {QStringLiteral("pairs.png"), QStringLiteral("pairs.svg")}) {
            QString error;
            const QString path = m_root.filePath(name);
            QVERIFY2(panel.exportChart(path, &error), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 1000);
        }
        // Hovering the pick tells its numbers.
        const int pick = c->chart()->pick();
        QVERIFY(pick >= 0);
        QTRY_VERIFY(!c->chart()->viewPosOf(pick).isNull());
        QVERIFY(c->chart()->pairAt(c->chart()->viewPosOf(pick)) >= 0);
    }

    void applySetsThePicksMode()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        test::SimulatedDevice device(m_root.filePath(QStringLiteral("device")));
        ExplorePanel panel;
        openConcurrent(panel, m_db, kTrain, kInfer);
        workflows::DeviceEndpoint endpoint;
        endpoint.name = QStringLiteral("Simulated Jetson AGX Orin (test)");
        endpoint.kind = QStringLiteral("orin-agx");
        endpoint.connect = device.connector();
        ModeApplier::Options options;
        options.keepAfterSeconds = 1;
        options.revertMarginSeconds = 3;
        panel.setApplyDevice(endpoint, options);
        ConcurrentExplorer *c = panel.concurrent();
        c->controls()->setArrivalRate(60);
        c->controls()->setLatencyBudget(1.0);
        c->controls()->setPowerBudget(25);
        const int pick = c->card()->pair();
        QVERIFY(pick >= 0);
        const PowerMode chosen = c->space()->data().modes[c->space()->data().modeOf(pick)];
        QVERIFY(c->card()->applyButton()->isEnabled());
        QVERIFY(c->card()->applyButton()->toolTip().contains(QStringLiteral("batch size")));
        QVERIFY(c->card()->verifyButton()->isEnabled());
        QSignalSpy finished(&panel, &ExplorePanel::applyFinished);
        c->card()->applyButton()->click();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = panel.findChild<QMessageBox *>(QStringLiteral("applyConfirmBox"))));
        box->button(QMessageBox::Yes)->click();
        QVERIFY(finished.wait(30000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(device.mode(), chosen.toCanonical());
        QVERIFY2(c->card()->applyStatusText().contains(QStringLiteral("Applied")),
                 qPrintable(c->card()->applyStatusText()));
    }

    // The public ResNet-18 training and MobileNet v3 inference files: most pairs predicted.
    void realDataPickAndTiming()
    {
        // PTWB_DATA_DIR (as for the Python suites) when ../shared is elsewhere.
        const QString dir =
            qEnvironmentVariable("PTWB_DATA_DIR", QStringLiteral(PTWB_SHARED_DATA_DIR)) +
            QStringLiteral("/orin-agx");
        const QString train = dir + QStringLiteral("/resnet18_imagenet_train.csv");
        const QString infer = dir + QStringLiteral("/mobilenetv3_infer.csv");
        if (!QFileInfo::exists(train) || !QFileInfo::exists(infer))
            QSKIP("../shared/data/orin-agx is absent: the public measurements are not here");
        const QString db = m_root.filePath(QStringLiteral("real.sqlite"));
        {
            auto store = Store::open(db);
            QVERIFY(store);
            Importer importer(**store);
            for (const auto &[file, workload] :
                 {std::pair {train, QStringLiteral("resnet18")},
                  std::pair {infer, QStringLiteral("mobilenet_infer")}}) {
                ImportRequest request;
                request.filePath = file;
                request.device = QStringLiteral("agx");
                request.deviceKind = QStringLiteral("orin-agx");
                request.workload = workload;
                const auto outcome = importer.run(request);
                QVERIFY2(outcome, qPrintable(outcome.error()));
            }
        }
        ExplorePanel panel;
        openConcurrent(panel, db, QStringLiteral("resnet18"), QStringLiteral("mobilenet_infer"));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ConcurrentExplorer *c = panel.concurrent();
        const ConcurrentSpace direct =
            loadDirectly(db, QStringLiteral("resnet18"), QStringLiteral("mobilenet_infer"));
        QVERIFY(c->space()->measuredPairs() > 0);
        QVERIFY(c->space()->measuredPairs() < c->space()->pairCount());
        c->controls()->setArrivalRate(60);
        c->controls()->setLatencyBudget(1.0);
        QSlider *power = c->controls()->powerSlider();
        QVector<double> times, paints;
        for (int position = power->minimum(); position <= power->maximum();
             position += std::max(1, (power->maximum() - power->minimum()) / 25)) {
            power->setValue(position);
            times.append(c->lastEvaluationMs());
            checkPickIsCores(c, direct);
            // The layers' images are rebuilt on the next paint.
            QElapsedTimer paint;
            paint.start();
            c->chart()->viewport()->repaint();
            paints.append(paint.nsecsElapsed() / 1e6);
        }
        checkChartMatchesAssessPair(c);
        std::sort(times.begin(), times.end());
        std::sort(paints.begin(), paints.end());
        qInfo("%d pairs: a slider move judges every pair and updates the card and the chart's "
              "layers in %.1f ms (median), %.1f ms (slowest); the repaint then takes %.1f ms "
              "(median), %.1f ms (slowest)",
              c->space()->pairCount(), times[times.size() / 2], times.last(),
              paints[paints.size() / 2], paints.last());
        QVERIFY(times[times.size() / 2] < 250);
    }
};

QTEST_MAIN(TestConcurrentExplorer)
#include "test_concurrentexplorer.moc"
