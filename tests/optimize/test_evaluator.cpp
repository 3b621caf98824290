#include "optimize/evaluation.h"
#include "optimize/modelstrategies.h"
#include "predict/syntheticstore.h"

#include <QTest>

using namespace ptwb;

namespace {

EvaluationOptions cheapOptions()
{
    EvaluationOptions options;
    options.budgetsW = {20, 25, 30, 35, 40};
    options.repeats = 3;
    options.samples = 20;
    options.strategies = {QStringLiteral("optimal"), QStringLiteral("maxn"), QStringLiteral("rnd")};
    return options;
}

}  // namespace

// The Evaluator's hooks for a window: progress, cancellation and a reference model given to it.
class TestEvaluator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void distributionsOfHandMadeSolutions()
    {
        // Budget 30 W, optimal 100 ms: a pick of 100 + p ms is p % slower.
        const QVector<double> penalties {30, -80, 0, 200, 10, 60, 20, 70, 40, 50};
        const QVector<double> excess {0, 0, 8, 0, 0.5, 0, 2, 0, 1, 0};
        QVector<Solution> solutions;
        for (int i = 0; i < penalties.size(); ++i)
            solutions.append({30, 100 + penalties[i], 30 + excess[i], 100, 2900});
        // Some picks under the budget: they count as no excess either.
        solutions[1].powerW = 20;
        const StrategyMetrics m = StrategyMetrics::of(QStringLiteral("x"), solutions);

        // Sorted -80, 0, 10, 20, 30, 40, 50, 60, 70, 200: quartiles at positions 2.25, 4.5, 6.75.
        QCOMPARE(m.timePenalty.q1, 12.5);
        QCOMPARE(m.timePenalty.median, 35.0);
        QCOMPARE(m.timePenalty.q3, 57.5);
        QCOMPARE(m.timePenaltyMedian, m.timePenalty.median);
        // IQR 45: fences at -55 and 125, so -80 and 200 are outliers, not whiskers.
        QCOMPARE(m.timePenalty.low, 0.0);
        QCOMPARE(m.timePenalty.high, 70.0);

        // Six zeros, 0.5, 1, 2, 8: q3 0.875, upper fence 2.1875, so 8 is an outlier.
        QCOMPARE(m.excessPower.low, 0.0);
        QCOMPARE(m.excessPower.q1, 0.0);
        QCOMPARE(m.excessPower.median, 0.0);
        QCOMPARE(m.excessPower.q3, 0.875);
        QCOMPARE(m.excessPower.high, 2.0);
        QCOMPARE(m.excessPowerArea, 11.5 / 10);

        // The same numbers under the JSON keys.
        const auto fields = m.distributionFields();
        const auto field = [&fields](const char *key) {
            for (const auto &[name, value] : fields) {
                if (name == QLatin1String(key))
                    return value;
            }
            return -1.0;
        };
        QCOMPARE(fields.size(), 9);
        QCOMPARE(field("time_penalty_whisker_low"), 0.0);
        QCOMPARE(field("time_penalty_q1"), 12.5);
        QCOMPARE(field("time_penalty_q3"), 57.5);
        QCOMPARE(field("time_penalty_whisker_high"), 70.0);
        QCOMPARE(field("excess_power_median"), 0.0);
        QCOMPARE(field("excess_power_q3"), 0.875);
        QCOMPARE(field("excess_power_whisker_high"), 2.0);
    }

    void distributionEdgeCases()
    {
        const Distribution none = Distribution::of({});
        QCOMPARE(none.low, 0.0);
        QCOMPARE(none.high, 0.0);
        const Distribution one = Distribution::of({4});
        QCOMPARE(one.low, 4.0);
        QCOMPARE(one.median, 4.0);
        QCOMPARE(one.high, 4.0);
        // No spread in the box: anything else is an outlier, the whiskers stay on the box.
        const Distribution flat = Distribution::of({5, 5, 5, 5, 5, 9, 1});
        QCOMPARE(flat.q1, 5.0);
        QCOMPARE(flat.q3, 5.0);
        QCOMPARE(flat.low, 5.0);
        QCOMPARE(flat.high, 5.0);
        // Two samples: the whiskers reach both, outside the interpolated quartiles.
        const Distribution two = Distribution::of({10, 0});
        QCOMPARE(two.q1, 2.5);
        QCOMPARE(two.q3, 7.5);
        QCOMPARE(two.low, 0.0);
        QCOMPARE(two.high, 10.0);
    }

    void reportsProgressPerRepeat()
    {
        Evaluator evaluator({}, syntheticDataWithMaxn(400, 1), QStringLiteral("orin-agx"),
                            cheapOptions());
        QVector<QPair<int, int>> steps;
        evaluator.setProgress([&](int done, int total) { steps.append({done, total}); });
        const auto results = evaluator.run({}, {});
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QCOMPARE(steps.size(), 9);  // 3 strategies x 3 repeats
        for (int i = 0; i < steps.size(); ++i)
            QCOMPARE(steps[i], qMakePair(i + 1, 9));
    }

    void cancelStopsBetweenRepeatsWithoutAHalfStrategy()
    {
        Evaluator evaluator({}, syntheticDataWithMaxn(400, 1), QStringLiteral("orin-agx"),
                            cheapOptions());
        int progressed = 0;
        evaluator.setProgress([&](int, int) { ++progressed; });
        // Cancelled during the second strategy's second repeat.
        evaluator.setCancelled([&] { return progressed >= 4; });
        QStringList done;
        const auto results =
            evaluator.run([&](const StrategyMetrics &m) { done.append(m.strategy); }, {});
        QVERIFY(!results.ok());
        QVERIFY2(results.error().contains(QStringLiteral("cancelled")),
                 qPrintable(results.error()));
        QCOMPARE(done, QStringList {QStringLiteral("optimal")});
        QCOMPARE(progressed, 4);
    }

    void cancelStopsTheReferenceTraining()
    {
        EvaluationOptions options = cheapOptions();
        options.strategies = {QStringLiteral("pt")};
        Evaluator evaluator(syntheticData(2000, 2), syntheticDataWithMaxn(400, 1),
                            QStringLiteral("orin-agx"), options);
        int polls = 0;
        evaluator.setCancelled([&] { return ++polls > 2; });  // two epochs in
        const auto results = evaluator.run({}, {});
        QVERIFY(!results.ok());
        QVERIFY2(results.error().contains(QStringLiteral("cancelled")),
                 qPrintable(results.error()));
    }

    void usesAGivenReferenceModel()
    {
        // A reference model given to the evaluator is used as is: no reference data needed.
        Expected<PowerModel> reference = PowerModel::train(
            QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("ref"),
            syntheticData(300, 2, 0.5), QStringLiteral("reference"), quickConfig(), 1);
        QVERIFY2(reference.ok(), qPrintable(reference.error()));
        EvaluationOptions options = cheapOptions();
        options.strategies = {QStringLiteral("optimal"), QStringLiteral("pt")};
        options.repeats = 1;
        Evaluator evaluator({}, syntheticDataWithMaxn(400, 1), QStringLiteral("orin-agx"), options);
        evaluator.setReferenceModel(std::make_shared<PowerModel>(std::move(reference).value()));
        QStringList log;
        const auto results = evaluator.run({}, [&](const QString &line) { log.append(line); });
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QCOMPARE(results->size(), 2);
        QCOMPARE(results->at(1).strategy, QStringLiteral("pt"));
        QCOMPARE(results->at(1).solutions, 5);
        QVERIFY(results->at(1).profiled >= 20);
        QVERIFY(log.filter(QStringLiteral("reference model:")).isEmpty());  // none trained
    }

    void countsTheModesThatAnsweredEachBudget()
    {
        // A search per budget (gmd, bs) is charged only the modes it profiled for that budget; a
        // strategy that profiles once up front (rnd) is charged all of them at every budget.
        EvaluationOptions options = cheapOptions();
        options.strategies = {QStringLiteral("optimal"), QStringLiteral("rnd"),
                              QStringLiteral("gmd"), QStringLiteral("bs")};
        Evaluator evaluator({}, syntheticDataWithMaxn(400, 1), QStringLiteral("orin-agx"), options);
        const auto results = evaluator.run({}, {});
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QCOMPARE(results->size(), 4);
        for (int i : {0, 1})  // optimal and rnd profile up front
            QCOMPARE(results->at(i).profiledPerBudget, results->at(i).profiled);
        QCOMPARE(results->at(0).profiledPerBudget, 400.0);
        for (int i : {2, 3}) {
            const StrategyMetrics &m = results->at(i);
            QVERIFY2(m.profiledPerBudget > 0 && m.profiledPerBudget < m.profiled,
                     qPrintable(QStringLiteral("%1: %2 per budget of %3")
                                    .arg(m.strategy)
                                    .arg(m.profiledPerBudget)
                                    .arg(m.profiled)));
        }
    }

    void ptProfilesAModeUnderEveryStretchOfBudgets()
    {
        // pt spends its profiles along the predicted front one per power level, so the
        // observed modes cover the target's power range: cut the true front's range into as
        // many stretches as a fifth of the profiles: every stretch holds a profiled mode
        // that a budget at its top would pick from the observed front alone.
        Expected<PowerModel> reference = PowerModel::train(
            QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("ref"),
            syntheticData(300, 2, 0.5), QStringLiteral("reference"), quickConfig(), 1);
        QVERIFY2(reference.ok(), qPrintable(reference.error()));
        const TrainingData target = syntheticDataWithMaxn(600, 3);
        StrategyContext context;
        context.deviceKind = QStringLiteral("orin-agx");
        context.reference = std::make_shared<PowerModel>(std::move(reference).value());
        context.samples = 40;
        ModelStrategy pt(ModelStrategy::Kind::Transfer);
        ProfilingOracle oracle(target);
        const Status prepared = pt.prepare(oracle, context);
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QCOMPARE(oracle.profiledCount(), 40);

        QVector<TradeoffPoint> all;
        QVector<TradeoffPoint> profiled;
        for (int row = 0; row < target.size(); ++row) {
            all.append({row, target.powerW[row], target.timeMs[row]});
            if (oracle.profiled().contains(row))
                profiled.append(all.last());
        }
        const ParetoFront truth(all);
        const ParetoFront seen(profiled);
        const double low = truth.powerTime().first().powerW;
        const double high = truth.powerTime().last().powerW;
        const int stretches = 8;
        for (int k = 1; k <= stretches; ++k) {
            const double budget = low + k * (high - low) / stretches;
            const std::optional<BudgetAnswer> best = truth.fastestWithin(budget);
            const std::optional<BudgetAnswer> verified = seen.fastestWithin(budget);
            QVERIFY(best && verified && verified->fits);
            QVERIFY2(verified->point.powerW > budget - (high - low) / stretches,
                     qPrintable(QStringLiteral("budget %1 W: the closest profiled mode below "
                                               "draws %2 W")
                                    .arg(budget)
                                    .arg(verified->point.powerW)));
        }
    }
};

QTEST_GUILESS_MAIN(TestEvaluator)
#include "test_evaluator.moc"
