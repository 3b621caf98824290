#pragma once

#include "optimize/strategy.h"
#include "predict/residualcorrection.h"

namespace ptwb {

// Predicted front from a model; the N profiled modes enter it with their observed values, every
// other mode with its prediction.
// - nn: an NN trained on N random modes.
// - pt: PowerTrain with the N modes chosen, not drawn: 30 % spread over the power range of the
//   reference model's predicted front (the modes that matter for a related workload), 20 % at
//   random (for the fit), then the other half in 5 rounds over the power range of the target's
//   own predicted front, transferring again after each round. The profiled front modes then anchor
//   the picks with observed values, and correct the predictions of the modes around them
//   (ResidualCorrection).
// - safe: pt, with a mode counted as fitting only when predicted power + kSafetySigmas standard
//   deviations of the model's own uncertainty stays within the budget.
class ModelStrategy : public Strategy
{
public:
    enum class Kind { Scratch, Transfer, SafeTransfer };
    static constexpr double kSafetySigmas = 0.5;
    static constexpr double kReferenceFrontShare = 0.3;
    static constexpr double kRandomShare = 0.2;
    static constexpr int kActiveRounds = 5;

    explicit ModelStrategy(Kind kind)
        : m_kind(kind)
    {
    }
    QString name() const override;
    Status prepare(ProfilingOracle &oracle, const StrategyContext &context) override;
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;

private:
    Status profileGuided(ProfilingOracle &oracle, const StrategyContext &context,
                         std::mt19937_64 &rng);

    const ResidualCorrection *correctionOrNull() const
    {
        return m_correction ? &*m_correction : nullptr;
    }

    Kind m_kind;
    ParetoFront m_front;
    std::optional<ResidualCorrection> m_correction;  // pt and safe only: nn stays the baseline
    std::optional<PowerModel> m_model;
};

// Active learning (our reading of Fulcrum's ALS): profile 20 random modes, then repeatedly train
// an NN on what was profiled, predict every mode, and profile the up to 10 modes of the predicted
// front not yet profiled, the most uncertain first, until 100 modes are profiled or the predicted
// front holds nothing new. Answers every budget from the observed front of the profiled modes:
// reusable Pareto modes, no model needed afterwards.
class ActiveLearningStrategy : public Strategy
{
public:
    static constexpr int kInitialModes = 20;
    static constexpr int kBatch = 10;
    static constexpr int kMaxModes = 100;

    QString name() const override { return QStringLiteral("als"); }
    Status prepare(ProfilingOracle &oracle, const StrategyContext &context) override;
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;

private:
    ParetoFront m_front;
};

}  // namespace ptwb
