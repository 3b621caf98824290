// Compare's batch size and mode evaluation on a real store: one workload measured at two
// training batch sizes on the orin-agx grid with a simulated samples-to-accuracy relation. The
// page runs on a worker (run() returns before the evaluation ends), its table shows the numbers
// of workflows::runBatchEvaluation on the same request (the workflow behind ptwb
// evaluate-batch), the simulated relation is said in red, a bad caps field names itself and
// runs nothing, and the form is remembered.
#include "batchchoice.h"
#include "batchcompare.h"
#include "batchcompareform.h"
#include "comparepanel.h"
#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "store/convergencestore.h"
#include "store/store.h"
#include "strategybarchart.h"

#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kTimeout = 120000;
const QString kWorkload = QStringLiteral("trainer");
const QString kKind = QStringLiteral("orin-agx");

// 30 modes per batch: a larger batch takes longer per minibatch but less
// per sample, and draws more; the peak is 15 % above the median.
QVector<Measurement> rowsOf(int batch)
{
    const ModeSpace space(DeviceSpec::builtin(kKind).value());
    // 24 modes spread over the grid, and the highest cores, CPU and memory at six GPU clocks
    // (what largest and proxy pick from).
    QVector<PowerMode> modes;
    for (int i = 0; i < 24; ++i)
        modes.append(space.mode(i * (space.size() / 24) + i % 7));
    const QVector<qint64> &gpu = space.values(Dimension::Gpu);
    for (int i = 0; i < 6; ++i)
        modes.append(PowerMode {int(space.values(Dimension::Cores).back()),
                                space.values(Dimension::Cpu).back(), gpu[(gpu.size() - 1) * i / 5],
                                space.values(Dimension::Emc).back()});
    QVector<Measurement> rows;
    for (const PowerMode &mode : modes) {
        Measurement m;
        m.mode = mode;
        const double ghz = m.mode.gpuHz / 1e9;
        const double cpu = m.mode.cpuKHz / 1e6;
        const double mem = m.mode.emcHz / 1e9;
        m.timeMs = (40.0 + batch * 1.5) / (0.2 + ghz) * (1 + 2.0 / m.mode.cores) / (0.5 + mem / 4) +
            10 / (0.2 + cpu);
        m.powerW = 6 + 14 * ghz * (batch == 64 ? 1.2 : 1.0) + m.mode.cores * 0.4 + 2 * mem +
            (batch == 64 ? 2 : 0);
        m.peakPowerW = m.powerW * 1.15;
        m.trainingBatch = batch;
        m.source = QStringLiteral("import");
        rows.append(m);
    }
    return rows;
}

QString makeStore(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("batch.sqlite"));
    auto store = Store::open(path);
    if (!store)
        return {};
    if (!(*store)
             ->addImport(QStringLiteral("bench-orin"), kKind, kWorkload,
                         kWorkload + QStringLiteral(".csv"), kWorkload, rowsOf(16) + rowsOf(64))
             .ok())
        return {};
    ConvergenceRelation r;
    r.workload = kWorkload;
    r.points = {{16, 160000}, {64, 200000}};
    r.targetAccuracy = 0.7;
    r.provenance = QLatin1String(ConvergenceProvenance::kSimulated);
    r.source = QStringLiteral("test_batchcompare");
    return ConvergenceStore(**store).replace(r).ok() ? path : QString();
}

BatchComparePanel *openBatch(ComparePanel &panel, const QString &path)
{
    QSignalSpy loaded(&panel, &ComparePanel::listsLoaded);
    panel.setDeviceKind(kKind);
    panel.setDatabasePath(path);
    if (!QTest::qWaitFor([&] { return !loaded.isEmpty(); }, kTimeout))
        return nullptr;
    panel.setProblem(ComparePanel::Problem::Batch);
    return panel.batch();
}

const QStringList kStrategies {QStringLiteral("oracle"), QStringLiteral("largest"),
                               QStringLiteral("proxy"), QStringLiteral("observed")};

}  // namespace

class TestBatchCompare : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        m_db = makeStore(m_dir);
        QVERIFY(!m_db.isEmpty());
    }

    void defaults()
    {
        const BatchCompareForm form;
        const auto request = form.request();
        QVERIFY2(request.ok(), qPrintable(request.error()));
        QCOMPARE(request->options.samples, 20);
        QCOMPARE(request->options.repeats, 5);
        QCOMPARE(request->options.strategies, BatchEvaluator::strategyNames());
        QCOMPARE(request->options.capsW, (QVector<double> {20, 30, 40}));
    }

    void runMatchesTheWorkflow()
    {
        ComparePanel compare;
        BatchComparePanel *panel = openBatch(compare, m_db);
        QVERIFY(panel);
        BatchCompareForm *form = panel->form();
        QVERIFY(form->hasWorkload());
        QVERIFY(form->setWorkload(kWorkload));
        QVERIFY(form->setReference(kWorkload + QStringLiteral("@16")));  // batch views listed
        QVERIFY(form->setReference(QString()));
        form->setCaps(QStringLiteral("18:40:4"));
        form->setRepeats(3);
        form->setSamples(8);
        form->setSeed(5);
        form->setStrategies(kStrategies);
        QSignalSpy finished(panel, &BatchComparePanel::finished);
        QSignalSpy failed(panel, &BatchComparePanel::failed);
        panel->run();
        QVERIFY(panel->isRunning());  // on a worker: the GUI thread is free
        QVERIFY(finished.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), kTimeout);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));

        workflows::BatchEvaluationRequest request = form->request().value();
        QCOMPARE(request.options.strategies, kStrategies);
        auto store = Store::open(m_db);
        QVERIFY(store);
        const auto expected = workflows::runBatchEvaluation(**store, request);
        QVERIFY2(expected.ok(), qPrintable(expected.error()));
        QCOMPARE(expected->results.size(), 4);
        QCOMPARE(panel->results().size(), 4);
        QCOMPARE(panel->table()->rowCount(), 4);
        const auto cell = [&](int row, int column) {
            return panel->table()->item(row, column)->text();
        };
        const auto number = [](double v, int decimals) {
            return QLocale().toString(v, 'f', decimals);
        };
        for (int i = 0; i < 4; ++i) {
            const BatchStrategyResult &got = panel->results()[i];
            const BatchStrategyResult &want = expected->results[i];
            QCOMPARE(got.strategy, want.strategy);
            QCOMPARE(got.problems, want.problems);
            QCOMPARE(got.penaltyMedian, want.penaltyMedian);
            QCOMPARE(got.penaltyQ1, want.penaltyQ1);
            QCOMPARE(got.penaltyQ3, want.penaltyQ3);
            QCOMPARE(got.found, want.found);
            QCOMPARE(got.violations, want.violations);
            QCOMPARE(got.profiledPerBatch, want.profiledPerBatch);
            QCOMPARE(cell(i, 0), want.strategy);
            QCOMPARE(cell(i, 1),
                     QStringLiteral("%1 [%2 %3]")
                         .arg(number(want.penaltyMedian, 2), number(want.penaltyQ1, 2),
                              number(want.penaltyQ3, 2)));
            QCOMPARE(cell(i, 2), number(want.found, 1));
            QCOMPARE(cell(i, 3), number(want.violations, 1));
            QCOMPARE(cell(i, 4), number(want.profiledPerBatch, 0));
            QCOMPARE(panel->penaltyChart()->value(1, i), want.penaltyMedian);
        }
        qInfo().noquote() << "\n" << panel->csv();
        QCOMPARE(panel->results()[0].strategy, QStringLiteral("oracle"));
        QCOMPARE(panel->results()[0].penaltyMedian, 0.0);
        QVERIFY(panel->results()[0].problems > 0);
        // The simulated relation is said, in red, with the batch sizes.
        QVERIFY(panel->summary()->isVisibleTo(panel));
        QVERIFY2(panel->summary()->text().contains(QStringLiteral("SIMULATED")),
                 qPrintable(panel->summary()->text()));
        QVERIFY(panel->summary()->text().contains(QStringLiteral("2 batch sizes")));
        QVERIFY(panel->summary()->styleSheet().contains(QStringLiteral("#c0392b")));
        QVERIFY(panel->csv().startsWith("strategy,penalty_median,"));
        QCOMPARE(panel->csv().count('\n'), 5);
    }

    void badCapsNameTheFieldAndRunNothing()
    {
        ComparePanel compare;
        BatchComparePanel *panel = openBatch(compare, m_db);
        QVERIFY(panel);
        panel->form()->setCaps(QStringLiteral("20,abc"));
        QSignalSpy finished(panel, &BatchComparePanel::finished);
        panel->run();
        QVERIFY(!panel->isRunning());
        QVERIFY2(panel->status()->text().startsWith(QStringLiteral("Power caps:")),
                 qPrintable(panel->status()->text()));
        QCOMPARE(panel->status()->textFormat(), Qt::PlainText);
        QTest::qWait(50);
        QVERIFY(finished.isEmpty());
        QCOMPARE(panel->table()->rowCount(), 0);
    }

    void cancelStops()
    {
        ComparePanel compare;
        BatchComparePanel *panel = openBatch(compare, m_db);
        QVERIFY(panel);
        panel->form()->setCaps(QStringLiteral("18:40:1"));
        panel->form()->setRepeats(200);
        panel->form()->setStrategies(kStrategies);
        QSignalSpy cancelled(panel, &BatchComparePanel::cancelled);
        QSignalSpy finished(panel, &BatchComparePanel::finished);
        panel->run();
        QVERIFY(panel->isRunning());
        panel->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), kTimeout);
        // Either stopped in time, or the run was quicker than the cancel.
        QCOMPARE(cancelled.size() + finished.size(), 1);
    }

    void formIsRemembered()
    {
        {
            BatchCompareForm form;
            form.setCaps(QStringLiteral("25,35"));
            form.setRepeats(2);
            form.setObjective(AccuracyObjective::Energy);
            form.setStrategies({QStringLiteral("oracle"), QStringLiteral("largest")});
        }
        const BatchCompareForm again;
        const auto request = again.request();
        QVERIFY(request.ok());
        QCOMPARE(request->options.capsW, (QVector<double> {25, 35}));
        QCOMPARE(request->options.repeats, 2);
        QCOMPARE(request->options.objective, AccuracyObjective::Energy);
        QCOMPARE(request->options.strategies,
                 (QStringList {QStringLiteral("oracle"), QStringLiteral("largest")}));
    }
};

QTEST_MAIN(TestBatchCompare)
#include "test_batchcompare.moc"
