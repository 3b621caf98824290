#include "optimize/budgetsearch.h"
#include "optimize/evaluation.h"
#include "optimize/gridsearches.h"
#include "optimize/searchstrategies.h"
#include "predict/synthetic.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace ptwb;

namespace {

// A synthetic "device": `sizes` values per knob, power rising and time falling with each.
TrainingData syntheticSpace(const std::array<int, 4> &sizes)
{
    TrainingData data;
    const double weight[4] = {1.0, 2.0, 6.0, 3.0};  // cores, CPU, GPU, memory
    for (int c = 0; c < sizes[0]; ++c)
        for (int u = 0; u < sizes[1]; ++u)
            for (int g = 0; g < sizes[2]; ++g)
                for (int m = 0; m < sizes[3]; ++m) {
                    const int index[4] = {c, u, g, m};
                    double power = 10;
                    double time = 20;
                    for (int d = 0; d < 4; ++d) {
                        const double x = sizes[d] > 1 ? double(index[d]) / (sizes[d] - 1) : 1;
                        power += weight[d] * 3 * x;
                        time += weight[d] * 40 / (1 + 4 * x);
                    }
                    data.modes.append({c + 1, 100000 + u, 1000000 + g, 2000000 + m});
                    data.powerW.append(power);
                    data.timeMs.append(time);
                }
    return data;
}

double optimalTime(const TrainingData &data, double budget)
{
    double best = -1;
    for (int i = 0; i < data.size(); ++i) {
        if (data.powerW[i] <= budget && (best < 0 || data.timeMs[i] < best))
            best = data.timeMs[i];
    }
    return best;
}

}  // namespace

class TestStrategies : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void binarySearchFindsTheOptimumInLog2Tries()
    {
        // One knob with 1,024 values: the optimum is the highest value that fits.
        const TrainingData line = syntheticSpace({1, 1, 1024, 1});
        ProfilingOracle oracle(line);
        BinarySearchStrategy bs;
        for (double budget : {30.5, 34.0, 39.7, 45.9}) {
            const Pick pick = bs.choose(budget, oracle);
            QVERIFY(pick.fits);
            QCOMPARE(line.timeMs[pick.row], optimalTime(line, budget));
            QVERIFY2(bs.lastTries() <= 12, qPrintable(QString::number(bs.lastTries())));
        }
        // Four knobs, 4 x 8 x 16 x 4 = 2,048 modes (log2 = 11).
        const TrainingData grid = syntheticSpace({4, 8, 16, 4});
        ProfilingOracle gridOracle(grid);
        for (double budget : {20.0, 26.0, 32.0, 38.0}) {
            const Pick pick = bs.choose(budget, gridOracle);
            QVERIFY(pick.fits);
            QVERIFY(grid.powerW[pick.row] <= budget);
            QVERIFY2(bs.lastTries() <= 2 * 11, qPrintable(QString::number(bs.lastTries())));
            const double penalty = grid.timeMs[pick.row] / optimalTime(grid, budget) - 1;
            QVERIFY2(penalty < 0.10, qPrintable(QString::number(penalty)));
        }
        // Nothing fits: the lowest-power mode it saw.
        const Pick none = bs.choose(5, gridOracle);
        QVERIFY(!none.fits);
    }

    void gradientDescentStaysWithinItsBudget()
    {
        const TrainingData grid = syntheticSpace({6, 10, 12, 4});
        ProfilingOracle oracle(grid);
        GradientDescentStrategy gmd;
        QVector<double> penalties;
        for (double budget = 20; budget <= 40; budget += 2) {
            const Pick pick = gmd.choose(budget, oracle);
            QVERIFY(gmd.lastTries() <= GradientDescentStrategy::kMaxProfiles);
            QVERIFY(pick.fits);
            QVERIFY(grid.powerW[pick.row] <= budget);
            penalties.append(grid.timeMs[pick.row] / optimalTime(grid, budget) - 1);
        }
        std::sort(penalties.begin(), penalties.end());
        // Stated quality: within 15 profiles, the median pick is within 10 % of the optimum.
        QVERIFY2(penalties[penalties.size() / 2] < 0.10,
                 qPrintable(QString::number(penalties[penalties.size() / 2])));
    }

    void aDeviceSearchStepByStepEndsWhereTheOfflineSearchDoes()
    {
        // Replayed one measurement at a time (as on a device, and after a resume), gmd, bs and
        // pts ask for each mode once and end with the offline search's pick.
        const TrainingData grid = syntheticSpace({6, 10, 12, 4});
        StrategyContext context;
        context.deviceKind = QStringLiteral("orin-agx");
        Expected<PowerModel> reference =
            PowerModel::train(QStringLiteral("lab"), context.deviceKind, QStringLiteral("ref"),
                              grid, QStringLiteral("reference"), quickConfig(), 1);
        QVERIFY2(reference.ok(), qPrintable(reference.error()));
        context.reference = std::make_shared<const PowerModel>(std::move(reference).value());
        for (const QString &name : BudgetSearch::strategies()) {
            for (double budget : {21.0, 28.0, 35.0}) {
                ProfilingOracle oracle(grid);
                const std::unique_ptr<Strategy> strategy = Strategy::create(name);
                QVERIFY(strategy->prepare(oracle, context).ok());
                const Pick offline = strategy->choose(budget, oracle);
                QHash<PowerMode, SearchObservation> measured;
                std::optional<SearchStep> last;
                for (int steps = 0; steps <= grid.size(); ++steps) {
                    Expected<SearchStep> step =
                        BudgetSearch::step(name, budget, false, context, grid.modes, measured);
                    QVERIFY2(step.ok(), qPrintable(step.error()));
                    last = *step;
                    if (!step->next)
                        break;
                    QVERIFY2(!measured.contains(*step->next), qPrintable(name));
                    const int row = int(grid.modes.indexOf(*step->next));
                    measured.insert(*step->next, {grid.powerW[row], grid.timeMs[row], false});
                }
                QVERIFY(last && !last->next);
                QCOMPARE(last->answer, grid.modes[offline.row]);
                QCOMPARE(last->fits, offline.fits);
                QCOMPARE(int(measured.size()), oracle.profiledCount());
                QCOMPARE(last->profiled, oracle.profiledCount());
            }
        }
        // A mode the device refused is never the answer, and the search goes on without it.
        for (const QString &name : {QStringLiteral("gmd"), QStringLiteral("pts")}) {
            QHash<PowerMode, SearchObservation> measured;
            std::optional<PowerMode> refused;
            bool ended = false;
            for (int steps = 0; steps <= grid.size() && !ended; ++steps) {
                Expected<SearchStep> step =
                    BudgetSearch::step(name, 30, false, context, grid.modes, measured);
                QVERIFY2(step.ok(), qPrintable(step.error()));
                if (!step->next) {
                    QVERIFY2(step->fits, qPrintable(name));
                    QVERIFY(step->answer != *refused);
                    ended = true;
                    break;
                }
                const int row = int(grid.modes.indexOf(*step->next));
                const bool refuse = !refused && grid.powerW[row] <= 30;  // the first that fits
                if (refuse)
                    refused = *step->next;
                measured.insert(*step->next, {grid.powerW[row], grid.timeMs[row], refuse});
            }
            QVERIFY2(ended && refused, qPrintable(name));
        }

        // A time budget: the lowest-power mode within it, on the mirrored grid (gmd and bs;
        // pts answers power budgets only).
        QVERIFY(!BudgetSearch::step(QStringLiteral("pts"), 150, true, context, grid.modes, {}));
        for (const QString &name : {QStringLiteral("gmd"), QStringLiteral("bs")}) {
            for (double budgetMs : {150.0, 250.0, 400.0}) {  // 116..500 ms here
                QHash<PowerMode, SearchObservation> seen;
                std::optional<SearchStep> last;
                for (int steps = 0; steps <= grid.size(); ++steps) {
                    Expected<SearchStep> step =
                        BudgetSearch::step(name, budgetMs, true, context, grid.modes, seen);
                    QVERIFY2(step.ok(), qPrintable(step.error()));
                    last = *step;
                    if (!step->next)
                        break;
                    QVERIFY(!seen.contains(*step->next));
                    const int row = int(grid.modes.indexOf(*step->next));
                    seen.insert(*step->next, {grid.powerW[row], grid.timeMs[row], false});
                }
                QVERIFY(last && !last->next && last->fits);
                const int row = int(grid.modes.indexOf(last->answer));
                QVERIFY(grid.timeMs[row] <= budgetMs);
                double lowest = std::numeric_limits<double>::infinity();
                for (int i = 0; i < grid.size(); ++i)
                    if (grid.timeMs[i] <= budgetMs)
                        lowest = std::min(lowest, grid.powerW[i]);
                // Within a fifth of the least power that meets the budget.
                QVERIFY2(grid.powerW[row] <= 1.2 * lowest,
                         qPrintable(QStringLiteral("%1 at %2 ms: %3 W, lowest %4 W")
                                        .arg(name)
                                        .arg(budgetMs)
                                        .arg(grid.powerW[row])
                                        .arg(lowest)));
            }
        }
        QVERIFY(!BudgetSearch::step(QStringLiteral("optimal"), 30, false, context, grid.modes, {})
                     .ok());
    }

    void searchesProfileEachModeOnceAndAnswerAPartialSweep()
    {
        // A sweep that skipped every third mode: the searches step onto the nearest candidate.
        const TrainingData full = syntheticSpace({6, 10, 12, 4});
        TrainingData partial;
        for (int row = 0; row < full.size(); ++row) {
            if (row % 3 == 0)
                continue;
            partial.modes.append(full.modes[row]);
            partial.powerW.append(full.powerW[row]);
            partial.timeMs.append(full.timeMs[row]);
        }
        ProfilingOracle oracle(partial);
        GradientDescentStrategy gmd;
        BinarySearchStrategy bs;
        for (Strategy *strategy : {static_cast<Strategy *>(&gmd), static_cast<Strategy *>(&bs)}) {
            for (double budget = 22; budget <= 40; budget += 3) {
                oracle.reset();
                oracle.beginBudget();
                const Pick pick = strategy->choose(budget, oracle);
                QVERIFY2(
                    pick.row >= 0 && pick.fits && partial.powerW[pick.row] <= budget,
                    qPrintable(QStringLiteral("%1 at %2 W").arg(strategy->name()).arg(budget)));
                const int tries = strategy == &gmd ? gmd.lastTries() : bs.lastTries();
                // No mode measured twice.
                QCOMPARE(oracle.profileCalls(), oracle.profiledCount());
                QCOMPARE(oracle.profiledCount(), tries);
                if (strategy == &gmd)
                    QVERIFY(tries <= GradientDescentStrategy::kMaxProfiles);
            }
        }
    }

    void evaluationOnASyntheticWorkload()
    {
        // als and rnd against the ground truth, through the evaluator.
        const TrainingData grid = syntheticSpace({6, 10, 12, 4});
        EvaluationOptions options;
        options.budgetsW = {20, 25, 30, 35, 40};
        options.repeats = 2;
        options.samples = 30;
        options.strategies = {QStringLiteral("optimal"), QStringLiteral("rnd"),
                              QStringLiteral("als")};
        const Evaluator evaluator({}, grid, QStringLiteral("orin-agx"), options);
        const auto results = evaluator.run({}, {});
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QCOMPARE(results->size(), 3);
        const StrategyMetrics &optimal = results->at(0);
        QCOMPARE(optimal.timePenaltyMedian, 0.0);
        QCOMPARE(optimal.al, 0.0);
        QCOMPARE(optimal.solutions, 10);
        const StrategyMetrics &rnd = results->at(1);
        QCOMPARE(rnd.profiled, 30.0);
        QCOMPARE(rnd.al, 0.0);  // observed values only: never above the budget
        const StrategyMetrics &als = results->at(2);
        QVERIFY(als.profiled >= 20 && als.profiled <= 100);
        QCOMPARE(als.al, 0.0);
        // Stated quality: active learning with at most 100 profiles is within 3 % of optimal
        // and better than 30 random profiles.
        QVERIFY2(als.timePenaltyMedian < 3.0, qPrintable(QString::number(als.timePenaltyMedian)));
        QVERIFY(als.timePenaltyMedian <= rnd.timePenaltyMedian);
    }

    void metricsByHand()
    {
        // Budgets 30 W; optimal 100 ms at 29 W (energy 2900).
        const QVector<Solution> solutions {
            {30, 100, 29, 100, 2900},  // optimal itself
            {30, 110, 25, 100, 2900},  // 10 % slower, under budget
            {30, 95, 30.5, 100, 2900},  // 5 % faster, 0.5 W over
            {30, 90, 32, 100, 2900},  // 10 % faster, 2 W over
        };
        const StrategyMetrics m = StrategyMetrics::of(QStringLiteral("x"), solutions);
        QCOMPARE(m.solutions, 4);
        QCOMPARE(m.timePenaltyMedian, (0.0 + -5.0) / 2);  // median of -10, -5, 0, 10
        QCOMPARE(m.al, 50.0);
        QCOMPARE(m.al1, 25.0);
        QCOMPARE(m.excessPowerArea, (0.5 + 2.0) / 4);
        // Energies 2900, 2750, 2897.5, 2880 against 2900: 0, -5.17, -0.086, -0.69 %.
        QVERIFY(std::fabs(m.energyPenaltyMedian - (-0.0862 + -0.6897) / 2) < 1e-3);
    }

    void budgetsParse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("count");
        QTest::addColumn<double>("last");
        QTest::newRow("range") << "17:50:1" << 34 << 50.0;
        QTest::newRow("half watts") << "20:22:0.5" << 5 << 22.0;
        QTest::newRow("list") << "20, 25,30" << 3 << 30.0;
        QTest::newRow("bad step") << "17:50:0" << -1 << 0.0;
        QTest::newRow("reversed") << "50:17:1" << -1 << 0.0;
        QTest::newRow("words") << "lots" << -1 << 0.0;
    }

    void budgetsParse()
    {
        QFETCH(QString, text);
        QFETCH(int, count);
        QFETCH(double, last);
        const Expected<QVector<double>> budgets = EvaluationOptions::parseBudgets(text);
        if (count < 0) {
            QVERIFY(!budgets.ok());
            QCOMPARE(budgets.errorKind(), ErrorKind::BadInput);
            return;
        }
        QVERIFY(budgets.ok());
        QCOMPARE(budgets->size(), count);
        QCOMPARE(budgets->last(), last);
    }
};

QTEST_GUILESS_MAIN(TestStrategies)
#include "test_strategies.moc"
