#include "concurrent/concurrentevaluation.h"
#include "concurrent/concurrentmodels.h"
#include "concurrent/concurrentsearches.h"
#include "syntheticpair.h"

#include <QTest>

using namespace ptwb;

namespace {

// A spread of problems: light and heavy arrival rates, tight and loose latency and power.
QVector<ConcurrentProblem> someProblems()
{
    ConcurrentGrid grid;
    grid.arrivalRates = {30, 75, 120};
    grid.latencyBudgetsS = {0.5, 1.0, 2.0};
    grid.powerBudgetsW = {12, 18, 25, 35, 50};
    return grid.problems();
}

std::shared_ptr<const PowerModel> referenceModel()
{
    ConcurrentData other = syntheticPair(0.5, 0.7);
    Expected<PowerModel> model = PowerModel::train(
        QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("ref"),
        other.training(), QStringLiteral("reference"), quickConfig(), 1);
    return std::make_shared<PowerModel>(std::move(model).value());
}

}  // namespace

class TestConcurrentStrategies : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyStrategyAnswersWithinItsProfileCount_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("limit");
        QTest::addColumn<bool>("verifies");  // answers only with a pair it measured feasible
        QTest::newRow("maxn") << QStringLiteral("maxn") << 5 << false;
        QTest::newRow("gmd") << QStringLiteral("gmd") << ConcurrentGradientDescent::kMaxProfiles
                             << true;
        QTest::newRow("bs") << QStringLiteral("bs") << 5 + 3 * 44 << true;
        QTest::newRow("pt") << QStringLiteral("pt") << 15 << true;
        QTest::newRow("safe") << QStringLiteral("safe") << 15 << true;
        QTest::newRow("nn") << QStringLiteral("nn") << 15 << true;
        QTest::newRow("als") << QStringLiteral("als") << ConcurrentActiveLearning::kMaxPairs
                             << true;
    }

    void everyStrategyAnswersWithinItsProfileCount()
    {
        QFETCH(QString, name);
        QFETCH(int, limit);
        QFETCH(bool, verifies);
        const ConcurrentData data = syntheticPair();
        ConcurrentContext context;
        context.deviceKind = QStringLiteral("orin-agx");
        context.samples = 15;
        if (ConcurrentStrategy::needsReference(name))
            context.trainingReference = referenceModel();
        std::unique_ptr<ConcurrentStrategy> strategy = ConcurrentStrategy::create(name);
        QVERIFY(strategy);
        ConcurrentOracle oracle(data);
        const Status prepared = strategy->prepare(oracle, context);
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        oracle.markPrepared();
        ConcurrentOracle truthOracle(data);
        OptimalConcurrentStrategy optimal;
        int solvable = 0, found = 0;
        for (const ConcurrentProblem &problem : someProblems()) {
            oracle.beginProblem();
            const int pair = strategy->choose(problem, oracle);
            QVERIFY2(oracle.problemProfiledCount() <= limit,
                     qPrintable(QStringLiteral("%1 profiled %2 pairs for (%3/s, %4 s, %5 W)")
                                    .arg(name)
                                    .arg(oracle.problemProfiledCount())
                                    .arg(problem.arrivalRate)
                                    .arg(problem.latencyBudgetS)
                                    .arg(problem.powerBudgetW)));
            if (pair >= 0 && verifies) {
                QVERIFY(oracle.isProfiled(pair));
                QVERIFY(assess(problem, data.cost(pair)).feasible());
            }
            const bool hasOptimum = optimal.choose(problem, truthOracle) >= 0;
            solvable += hasOptimum ? 1 : 0;
            found += hasOptimum && pair >= 0 && assess(problem, data.cost(pair)).feasible();
        }
        QVERIFY(solvable > 10);
        if (name != QLatin1String("maxn"))  // maxn ignores the power budget
            QVERIFY2(found * 10 >= solvable * 7,
                     qPrintable(QStringLiteral("%1 answered %2 of %3 solvable problems")
                                    .arg(name)
                                    .arg(found)
                                    .arg(solvable)));
    }

    void maxnTakesTheLargestBatchThatMeetsTheLatency()
    {
        const ConcurrentData data = syntheticPair();
        ConcurrentOracle oracle(data);
        MaxnConcurrentStrategy maxn;
        QVERIFY(maxn.prepare(oracle, {}).ok());
        const ConcurrentProblem problem {60, 0.5, 100};
        const int pair = maxn.choose(problem, oracle);
        QVERIFY(pair >= 0);
        QCOMPARE(data.modeOf(pair), oracle.maxnMode());
        QVERIFY(assess(problem, data.cost(pair)).meetsLatency);
        for (int b = data.batchIndexOf(pair) + 1; b < data.batches.size(); ++b) {
            const ConcurrentOutcome larger =
                assess(problem, data.cost(data.pairOf(oracle.maxnMode(), b)));
            QVERIFY(!(larger.meetsLatency && larger.keepsUp));
        }
    }

    void theEvaluationScoresAgainstTheOptimum()
    {
        ConcurrentEvaluationOptions options;
        options.grid.arrivalRates = {30, 90};
        options.grid.latencyBudgetsS = {0.5, 1.5};
        options.grid.powerBudgetsW = {15, 25, 40};
        options.strategies = {QStringLiteral("optimal"), QStringLiteral("maxn"),
                              QStringLiteral("gmd")};
        options.repeats = 2;
        int picks = 0;
        ConcurrentEvaluator evaluator(syntheticPair(), QStringLiteral("orin-agx"), options);
        evaluator.setPickSink([&](const QString &, const ConcurrentPickRecord &) { ++picks; });
        const auto results = evaluator.run({}, {});
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QCOMPARE(picks, 3 * 2 * 12);
        const ConcurrentMetrics &optimal = results->at(0);
        QCOMPARE(optimal.throughputShortfallMedian, 0.0);
        QCOMPARE(optimal.feasibleFound, 100.0);
        QCOMPARE(optimal.violations, 0.0);
        QCOMPARE(optimal.profiledPerProblem, double(441 * 5));
        QVERIFY(optimal.problems > 0);
        // maxn ignores power: at 15 W it breaks the budget.
        QVERIFY(results->at(1).violations > 0);
        QVERIFY(results->at(2).profiledPerProblem <= ConcurrentGradientDescent::kMaxProfiles);
        QCOMPARE(results->at(2).violations, 0.0);
    }

    void modelStrategiesReportTheirPredictionError()
    {
        ConcurrentEvaluationOptions options;
        options.grid.arrivalRates = {60};
        options.grid.latencyBudgetsS = {1.0};
        options.grid.powerBudgetsW = {25};
        options.strategies = {QStringLiteral("gmd"), QStringLiteral("pt")};
        options.repeats = 1;
        ConcurrentEvaluator evaluator(syntheticPair(), QStringLiteral("orin-agx"), options);
        const ConcurrentData reference = syntheticPair(0.5, 0.7);
        QVector<Measurement> inference = syntheticInference(0.7);
        evaluator.setReferences(reference.training(), inference);
        const auto results = evaluator.run({}, {});
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QVERIFY(!results->at(0).predictionError);  // gmd has no model
        const auto &error = results->at(1).predictionError;
        QVERIFY(error);
        // Smooth synthetic workloads: the predictions are close, but not the data itself.
        for (double mape :
             {error->trainTime, error->trainPower, error->inferTime, error->inferPower}) {
            QVERIFY2(mape > 0 && mape < 30, qPrintable(QString::number(mape)));
        }
    }

    void anUnknownStrategyIsBadInput()
    {
        ConcurrentEvaluationOptions options;
        options.grid.arrivalRates = {30};
        options.grid.latencyBudgetsS = {1};
        options.grid.powerBudgetsW = {20};
        options.strategies = {QStringLiteral("optimal"), QStringLiteral("magic")};
        ConcurrentEvaluator evaluator(syntheticPair(), QStringLiteral("orin-agx"), options);
        const auto results = evaluator.run({}, {});
        QVERIFY(!results.ok());
        QCOMPARE(results.field(), InputField::Strategies);
        QVERIFY(results.error().contains(QStringLiteral("'magic'")));
    }
};

QTEST_GUILESS_MAIN(TestConcurrentStrategies)
#include "test_concurrentstrategies.moc"
