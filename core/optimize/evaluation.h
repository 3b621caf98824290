#pragma once

#include "optimize/strategy.h"
#include "util/quartiles.h"

#include <QStringList>

namespace ptwb {

// One answered budget, judged by the observed values of the picked and the optimal mode.
struct Solution
{
    double budgetW = 0;
    double timeMs = 0;
    double powerW = 0;
    double optimalTimeMs = 0;
    double optimalEnergy = 0;  // W x ms of the optimal pick
    int profiled = 0;  // distinct modes that answered this budget (ProfilingOracle)
};

struct StrategyMetrics
{
    QString strategy;
    double profiled = 0;  // distinct modes profiled per repeat, mean
    double profiledPerBudget = 0;  // distinct modes that answered one budget, median
    int solutions = 0;
    double timePenaltyMedian = 0;  // % slower than the optimal pick, median over solutions
    Distribution timePenalty;  // the same penalty's box plot over solutions
    Distribution excessPower;  // max(0, power - budget) in W, over solutions
    double energyPenaltyMedian = 0;  // % more energy than the optimal pick, median
    double excessPowerArea = 0;  // mean W above budget per solution
    double al = 0;  // % of solutions above the budget
    double al1 = 0;  // % above budget + 1 W
    double seconds = 0;  // mean wall time per repeat

    static StrategyMetrics of(const QString &strategy, const QVector<Solution> &solutions);
    // The box plots' numbers under the keys of `ptwb evaluate --json` (time_penalty_q1, ...,
    // excess_power_whisker_high), leaving out time_penalty_median, a key of its own.
    QVector<std::pair<QString, double>> distributionFields() const;
};

struct EvaluationOptions
{
    QVector<double> budgetsW;  // power budgets
    int samples = 50;
    int repeats = 10;
    QStringList strategies = Strategy::names();
    quint64 seed = 0;

    // "17:50:1" -> 17, 18, ..., 50; "30" -> 30; "20,25,30" -> those.
    static Expected<QVector<double>> parseBudgets(const QString &text);
    // pt and safe start from a reference model; the other strategies need no reference.
    bool needsReference() const
    {
        return strategies.contains(QStringLiteral("pt")) ||
            strategies.contains(QStringLiteral("safe")) ||
            strategies.contains(QStringLiteral("pts"));
    }
};

// Runs each strategy against a target workload's measured modes for every budget and repeat
// (the same draws for every strategy in a repeat), and reduces the picks to metrics.
class Evaluator
{
public:
    Evaluator(TrainingData reference, TrainingData target, QString deviceKind,
              EvaluationOptions options);

    // Polled between repeats and during the reference training: true stops the run, which
    // then fails with a message saying it was cancelled (strategies already done were reported).
    void setCancelled(std::function<bool()> cancelled) { m_cancelled = std::move(cancelled); }
    // After each repeat of each strategy: `done` of `total` (strategies x repeats).
    void setProgress(std::function<void(int done, int total)> progress)
    {
        m_progress = std::move(progress);
    }
    // The device kind the reference workload was measured on, when it is not the target's: pt
    // and safe then transfer across devices.
    void setReferenceKind(QString kind) { m_referenceKind = std::move(kind); }
    // A reference model to use for pt and safe instead of training one on the reference data.
    void setReferenceModel(std::shared_ptr<const PowerModel> model)
    {
        m_referenceModel = std::move(model);
    }

    Expected<QVector<StrategyMetrics>> run(const std::function<void(const StrategyMetrics &)> &done,
                                           const std::function<void(const QString &)> &log) const;

private:
    bool isCancelled() const { return m_cancelled && m_cancelled(); }

    TrainingData m_reference;
    TrainingData m_target;
    QString m_deviceKind;
    QString m_referenceKind;  // the target's unless set
    EvaluationOptions m_options;
    std::function<bool()> m_cancelled;
    std::function<void(int, int)> m_progress;
    std::shared_ptr<const PowerModel> m_referenceModel;
};

}  // namespace ptwb
