#include "optimize/evaluation.h"

#include "util/numberrange.h"

#include "predict/accuracybench.h"

#include <QElapsedTimer>

#include <cmath>
#include <numeric>

namespace ptwb {

StrategyMetrics StrategyMetrics::of(const QString &strategy, const QVector<Solution> &solutions)
{
    StrategyMetrics m;
    m.strategy = strategy;
    m.solutions = int(solutions.size());
    if (solutions.isEmpty())
        return m;
    QVector<double> timePenalties;
    QVector<double> energyPenalties;
    QVector<double> profiled;
    QVector<double> excess;
    int above = 0;
    int aboveOne = 0;
    for (const Solution &s : solutions) {
        timePenalties.append(100.0 * (s.timeMs - s.optimalTimeMs) / s.optimalTimeMs);
        energyPenalties.append(100.0 * (s.timeMs * s.powerW - s.optimalEnergy) / s.optimalEnergy);
        profiled.append(s.profiled);
        excess.append(std::max(0.0, s.powerW - s.budgetW));
        above += s.powerW > s.budgetW ? 1 : 0;
        aboveOne += s.powerW > s.budgetW + 1 ? 1 : 0;
    }
    m.timePenalty = Distribution::of(timePenalties);
    m.timePenaltyMedian = m.timePenalty.median;
    m.excessPower = Distribution::of(excess);
    m.energyPenaltyMedian = Quartiles::of(energyPenalties).median;
    m.profiledPerBudget = Quartiles::of(profiled).median;
    m.excessPowerArea = std::accumulate(excess.cbegin(), excess.cend(), 0.0) / solutions.size();
    m.al = 100.0 * above / solutions.size();
    m.al1 = 100.0 * aboveOne / solutions.size();
    return m;
}

QVector<std::pair<QString, double>> StrategyMetrics::distributionFields() const
{
    return {{QStringLiteral("time_penalty_whisker_low"), timePenalty.low},
            {QStringLiteral("time_penalty_q1"), timePenalty.q1},
            {QStringLiteral("time_penalty_q3"), timePenalty.q3},
            {QStringLiteral("time_penalty_whisker_high"), timePenalty.high},
            {QStringLiteral("excess_power_whisker_low"), excessPower.low},
            {QStringLiteral("excess_power_q1"), excessPower.q1},
            {QStringLiteral("excess_power_median"), excessPower.median},
            {QStringLiteral("excess_power_q3"), excessPower.q3},
            {QStringLiteral("excess_power_whisker_high"), excessPower.high}};
}

Expected<QVector<double>> EvaluationOptions::parseBudgets(const QString &text)
{
    return parseNumberRange(text, InputField::Budgets, QStringLiteral("17:50:1"));
}

Evaluator::Evaluator(TrainingData reference, TrainingData target, QString deviceKind,
                     EvaluationOptions options)
    : m_reference(std::move(reference))
    , m_target(std::move(target))
    , m_deviceKind(std::move(deviceKind))
    , m_referenceKind(m_deviceKind)
    , m_options(std::move(options))
{
}

Expected<QVector<StrategyMetrics>>
Evaluator::run(const std::function<void(const StrategyMetrics &)> &done,
               const std::function<void(const QString &)> &log) const
{
    using Result = Expected<QVector<StrategyMetrics>>;
    for (const QString &name : m_options.strategies) {
        if (!Strategy::create(name)) {
            return Result::badInput(InputField::Strategies,
                                    QStringLiteral("unknown strategy '%1'; expected some of %2")
                                        .arg(name, Strategy::names().join(QLatin1Char(','))));
        }
    }
    if (m_options.samples < 3 || m_options.samples >= m_target.size())
        return Result::badInput(InputField::Samples,
                                QStringLiteral("%1 is not between 3 and %2")
                                    .arg(m_options.samples)
                                    .arg(m_target.size() - 1));

    // The ground truth for every budget.
    QVector<TradeoffPoint> all;
    for (int row = 0; row < m_target.size(); ++row)
        all.append({row, m_target.powerW[row], m_target.timeMs[row]});
    const ParetoFront truth(all);

    StrategyContext context;
    context.deviceKind = m_deviceKind;
    context.samples = m_options.samples;
    const bool needsReference = m_options.needsReference();
    const auto cancelled = [] { return Result::failure(QStringLiteral("evaluation cancelled")); };
    if (needsReference && m_referenceModel) {
        context.reference = m_referenceModel;
    } else if (needsReference) {
        QElapsedTimer timer;
        timer.start();
        TrainingCallbacks callbacks;
        callbacks.cancelled = m_cancelled;
        const QString &referenceKind = m_referenceKind;
        Expected<PowerModel> reference = PowerModel::train(
            referenceKind, referenceKind, QStringLiteral("reference"), m_reference,
            QStringLiteral("reference"), QStringLiteral("default"), 1, callbacks);
        if (isCancelled())
            return cancelled();
        if (!reference)
            return passOn<Result>(reference);
        context.reference = std::make_shared<PowerModel>(std::move(reference).value());
        if (log)
            log(QStringLiteral("reference model: %1 s").arg(timer.elapsed() / 1000.0, 0, 'f', 2));
    }

    QVector<StrategyMetrics> results;
    const int steps = int(m_options.strategies.size()) * m_options.repeats;
    int step = 0;
    for (const QString &name : m_options.strategies) {
        QVector<Solution> solutions;
        double profiled = 0;
        QElapsedTimer timer;
        timer.start();
        for (int repeat = 0; repeat < m_options.repeats; ++repeat) {
            if (isCancelled())
                return cancelled();
            std::unique_ptr<Strategy> strategy = Strategy::create(name);
            ProfilingOracle oracle(m_target);
            context.seed = m_options.seed * 1000003 + repeat;
            if (Status status = strategy->prepare(oracle, context); !status)
                return Result::failure(QStringLiteral("%1: %2").arg(name, status.error()),
                                       status.errorKind());
            oracle.markPrepared();
            for (double budget : m_options.budgetsW) {
                const std::optional<BudgetAnswer> best = truth.fastestWithin(budget);
                if (!best || !best->fits)
                    continue;  // no mode meets it: nothing to judge against
                oracle.beginBudget();
                const Pick pick = strategy->choose(budget, oracle);
                if (pick.row < 0)
                    return Result::failure(QStringLiteral("%1 picked no mode").arg(name));
                solutions.append({budget, m_target.timeMs[pick.row], m_target.powerW[pick.row],
                                  best->point.timeMs, best->point.energy(),
                                  oracle.budgetProfiledCount()});
            }
            profiled += oracle.profiledCount();
            if (m_progress)
                m_progress(++step, steps);
        }
        StrategyMetrics metrics = StrategyMetrics::of(name, solutions);
        metrics.profiled = profiled / m_options.repeats;
        metrics.seconds = timer.nsecsElapsed() / 1e9 / m_options.repeats;
        results.append(metrics);
        if (done)
            done(metrics);
    }
    return results;
}

}  // namespace ptwb
