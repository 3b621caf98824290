#include "comparepanel.h"
#include "concurrent/syntheticpair.h"
#include "concurrentcompare.h"
#include "concurrentcompareform.h"
#include "concurrentstudy.h"
#include "store/store.h"
#include "strategybarchart.h"
#include "strategyboxchart.h"

#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kTimeout = 120000;

// A store holding the synthetic pair on the study's 441-mode grid: "train" and "infer", and a
// second pair "train2"/"infer2" of another law to serve as references.
QString makePairStore(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("pair.sqlite"));
    auto store = Store::open(path);
    if (!store)
        return {};
    const auto add = [&](const QString &workload, const QVector<Measurement> &rows) {
        return (*store)
            ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), workload,
                        workload + QStringLiteral(".csv"), workload, rows)
            .ok();
    };
    const bool ok = add(QStringLiteral("train"), syntheticTraining()) &&
        add(QStringLiteral("infer"), syntheticInference()) &&
        add(QStringLiteral("train2"), syntheticTraining(0.5)) &&
        add(QStringLiteral("infer2"), syntheticInference(1.4));
    return ok ? path : QString();
}

// Waits until the panel lists the store's workloads, and shows the concurrent problem.
ConcurrentComparePanel *openConcurrent(ComparePanel &panel, const QString &path)
{
    QSignalSpy loaded(&panel, &ComparePanel::listsLoaded);
    panel.setDeviceKind(QStringLiteral("orin-agx"));
    panel.setDatabasePath(path);
    if (!QTest::qWaitFor([&] { return !loaded.isEmpty(); }, kTimeout))
        return nullptr;
    panel.setProblem(ComparePanel::Problem::Concurrent);
    return panel.concurrent();
}

}  // namespace

class TestConcurrentCompare : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultsAreTheStudysGrid()
    {
        const ConcurrentCompareForm form;
        const Expected<ConcurrentEvaluationOptions> options = form.options();
        QVERIFY2(options.ok(), qPrintable(options.error()));
        const ConcurrentGrid study = ConcurrentGrid::study();
        QCOMPARE(options->grid.arrivalRates, study.arrivalRates);
        QCOMPARE(options->grid.latencyBudgetsS, study.latencyBudgetsS);
        QCOMPARE(options->grid.powerBudgetsW, study.powerBudgetsW);
        QCOMPARE(options->samples, 15);
        QVERIFY(options->repeats >= 2 && options->repeats <= 3);
        QCOMPARE(options->seed, quint64(0));
        // No training reference listed: pt and safe cannot be checked, and say why.
        QVERIFY(!form.isStrategyEnabled(QStringLiteral("pt")));
        QVERIFY(!form.isStrategyEnabled(QStringLiteral("safe")));
        QVERIFY(form.isStrategyEnabled(QStringLiteral("gmd")));
        QVERIFY(!options->strategies.contains(QStringLiteral("pt")));
    }

    void runMatchesTheEvaluator()
    {
        QTemporaryDir dir;
        const QString path = makePairStore(dir);
        QVERIFY(!path.isEmpty());
        ComparePanel compare;
        ConcurrentComparePanel *panel = openConcurrent(compare, path);
        QVERIFY(panel);
        ConcurrentCompareForm *form = panel->form();
        QVERIFY(form->hasPair());
        QVERIFY(form->setTrainingWorkload(QStringLiteral("train")));
        QVERIFY(form->setInferenceWorkload(QStringLiteral("infer")));
        // The first list chose references other than the workloads: pt and safe are possible.
        QCOMPARE(form->workloads().trainingReference.workload, QStringLiteral("train2"));
        QVERIFY(form->isStrategyEnabled(QStringLiteral("pt")));
        QVERIFY(form->setTrainingReference(QString()));
        QVERIFY(!form->isStrategyEnabled(QStringLiteral("pt")));
        form->setGrid(QStringLiteral("40:100:30"), QStringLiteral("0.5,1,2"),
                      QStringLiteral("15:45:10"));
        form->setRepeats(1);
        form->setSamples(15);
        form->setSeed(3);
        const QStringList strategies {QStringLiteral("optimal"), QStringLiteral("maxn"),
                                      QStringLiteral("gmd")};
        form->setStrategies(strategies);
        QSignalSpy finished(panel, &ConcurrentComparePanel::finished);
        QSignalSpy failed(panel, &ConcurrentComparePanel::failed);
        panel->run();
        QVERIFY(panel->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), kTimeout);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));

        // The same numbers as the core evaluator on the same pair and options.
        const Expected<ConcurrentEvaluationOptions> options = form->options();
        QVERIFY(options.ok());
        QCOMPARE(options->strategies, strategies);
        QCOMPARE(options->grid.problems().size(), 3 * 3 * 4);
        const ConcurrentData pair =
            ConcurrentData::join(syntheticTraining(), syntheticInference(), QStringLiteral("train"),
                                 QStringLiteral("infer"))
                .value();
        const auto expected =
            ConcurrentEvaluator(pair, QStringLiteral("orin-agx"), *options).run({}, {});
        QVERIFY2(expected.ok(), qPrintable(expected.error()));
        QCOMPARE(panel->results().size(), 3);
        QCOMPARE(panel->table()->rowCount(), 3);
        const auto cell = [&](int row, int column) {
            return panel->table()->item(row, column)->text();
        };
        for (int i = 0; i < 3; ++i) {
            const ConcurrentMetrics &got = panel->results()[i];
            const ConcurrentMetrics &want = expected->at(i);
            QCOMPARE(got.strategy, want.strategy);
            QCOMPARE(got.problems, want.problems);
            QCOMPARE(got.throughputShortfallMedian, want.throughputShortfallMedian);
            QCOMPARE(got.exactlyOptimal, want.exactlyOptimal);
            QCOMPARE(got.feasibleFound, want.feasibleFound);
            QCOMPARE(got.violations, want.violations);
            QCOMPARE(got.profiledPerProblem, want.profiledPerProblem);
            QCOMPARE(got.profiled, want.profiled);
            // The table's row shows the evaluator's numbers.
            QCOMPARE(cell(i, 0), want.strategy);
            QCOMPARE(cell(i, 1), QLocale().toString(double(want.problems), 'f', 0));
            QCOMPARE(cell(i, 2), QLocale().toString(want.throughputShortfallMedian, 'f', 2));
            QCOMPARE(cell(i, 3), QLocale().toString(want.exactlyOptimal, 'f', 1));
            QCOMPARE(cell(i, 4), QLocale().toString(want.feasibleFound, 'f', 1));
            QCOMPARE(cell(i, 5), QLocale().toString(want.violations, 'f', 2));
            QCOMPARE(cell(i, 6), QLocale().toString(want.profiledPerProblem, 'f', 1));
            QCOMPARE(cell(i, 7), QLocale().toString(want.profiled, 'f', 1));
            // And the charts plot them.
            QCOMPARE(panel->shortfallChart()->box(i).median, want.throughputShortfall.median);
            QCOMPARE(panel->answersChart()->value(0, i), want.feasibleFound);
            QCOMPARE(panel->answersChart()->value(1, i), want.exactlyOptimal);
            QCOMPARE(panel->violationChart()->value(0, i), want.violations);
        }
        QCOMPARE(panel->shortfallChart()->categories(), strategies);
        QCOMPARE(expected->at(0).exactlyOptimal, 100.0);  // optimal is the optimum
        QVERIFY(expected->at(1).violations > 0);  // maxn ignores the power budget

        // CSV on a worker, the charts as a picture (also through the Compare view).
        QSignalSpy exported(panel, &ConcurrentComparePanel::exported);
        const QString csvPath = dir.filePath(QStringLiteral("concurrent.csv"));
        panel->exportCsv(csvPath);
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, kTimeout);
        QFile file(csvPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[0].startsWith("strategy,problems,throughput_shortfall_median,"));
        QVERIFY(
            lines[1].startsWith("optimal," + QByteArray::number(expected->at(0).problems) + ",0,"));
        QString error;
        const QString png = dir.filePath(QStringLiteral("charts.png"));
        QVERIFY2(compare.exportCharts(png, &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), panel->charts()->size());
    }

    void badGridShowsItsErrorAndDoesNotRun()
    {
        QTemporaryDir dir;
        const QString path = makePairStore(dir);
        QVERIFY(!path.isEmpty());
        ComparePanel compare;
        ConcurrentComparePanel *panel = openConcurrent(compare, path);
        QVERIFY(panel);
        panel->form()->setGrid(QStringLiteral("30:120:10"), QStringLiteral("2:0.5:0.1"),
                               QStringLiteral("10:50:1"));
        const QString error = panel->form()->fieldError(InputField::LatencyBudget);
        QVERIFY2(error.contains(QStringLiteral("'2:0.5:0.1'")), qPrintable(error));
        QVERIFY(error.contains(QStringLiteral("FROM:TO:STEP")));
        QVERIFY(panel->form()->fieldError(InputField::ArrivalRate).isEmpty());
        QVERIFY(!panel->form()->options().ok());
        const QPushButton *run = nullptr;
        for (const QPushButton *button : panel->findChildren<QPushButton *>()) {
            if (button->text() == QStringLiteral("&Run evaluation"))
                run = button;
        }
        QVERIFY(run);
        QVERIFY(!run->isEnabled());
        QSignalSpy failed(panel, &ConcurrentComparePanel::failed);
        panel->run();
        QVERIFY(!panel->isRunning());
        QVERIFY(panel->status()->text().contains(QStringLiteral("'2:0.5:0.1'")));
        QVERIFY(panel->results().isEmpty());
        // Fixed, the error goes.
        panel->form()->setGrid(QStringLiteral("30:120:10"), QStringLiteral("0.5:2:0.1"),
                               QStringLiteral("10:50:1"));
        QVERIFY(panel->form()->fieldError(InputField::LatencyBudget).isEmpty());
        QVERIFY(run->isEnabled());
    }

    void cancelStopsARun()
    {
        QTemporaryDir dir;
        const QString path = makePairStore(dir);
        QVERIFY(!path.isEmpty());
        ComparePanel compare;
        ConcurrentComparePanel *panel = openConcurrent(compare, path);
        QVERIFY(panel);
        // The whole study grid, many repeats: quick optimal, then gmd cancelled between repeats.
        panel->form()->setRepeats(100);
        panel->form()->setStrategies({QStringLiteral("optimal"), QStringLiteral("gmd")});
        QSignalSpy cancelled(panel, &ConcurrentComparePanel::cancelled);
        QSignalSpy finished(panel, &ConcurrentComparePanel::finished);
        panel->run();
        QVERIFY(panel->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(panel->results().size() == 1, kTimeout);
        panel->cancel();
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kTimeout);
        QVERIFY(finished.isEmpty());
        QVERIFY(!panel->isRunning());
        QCOMPARE(panel->results().size(), 1);
        QCOMPARE(panel->table()->rowCount(), 1);
        QVERIFY(panel->status()->text().startsWith(QStringLiteral("Cancelled")));
    }

    void storedWorkloadsGiveTheFilesEvaluator()
    {
        // The store's variant of the workflow: a training workload as the inference one is bad
        // input about the inference workload.
        QTemporaryDir dir;
        const QString path = makePairStore(dir);
        QVERIFY(!path.isEmpty());
        auto store = Store::open(path);
        QVERIFY(store.ok());
        ConcurrentEvaluationOptions options;
        options.strategies = {QStringLiteral("optimal")};
        workflows::ConcurrentWorkloads workloads;
        workloads.training = {QString(), QStringLiteral("train")};
        workloads.inference = {QString(), QStringLiteral("train2")};
        auto wrong = workflows::concurrentEvaluator(**store, workloads, options);
        QVERIFY(!wrong.ok());
        QCOMPARE(wrong.field(), InputField::Inference);
        workloads.inference = {QString(), QStringLiteral("infer")};
        options.strategies = {QStringLiteral("pt")};
        auto noReference = workflows::concurrentEvaluator(**store, workloads, options);
        QVERIFY(!noReference.ok());
        QCOMPARE(noReference.field(), InputField::TrainingReference);
        workloads.trainingReference = {QString(), QStringLiteral("train2")};
        workloads.inferenceReference = {QString(), QStringLiteral("infer2")};
        auto evaluator = workflows::concurrentEvaluator(**store, workloads, options);
        QVERIFY2(evaluator.ok(), evaluator.ok() ? "" : qPrintable(evaluator.error()));
        QCOMPARE(evaluator->target().pairCount(), 441 * 5);
    }
};

QTEST_MAIN(TestConcurrentCompare)
#include "test_concurrentcompare.moc"
