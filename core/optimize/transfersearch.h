#pragma once

#include "optimize/strategy.h"

#include <QSet>

namespace ptwb {

// pts: PowerTrain as a search for one budget, verifying its pick. Before any budget it profiles
// a few modes (spread over the reference model's predicted front, and at random); for each budget
// it transfers the reference to what it knows (those and this budget's own profiles), takes the
// fastest mode the front says fits, and profiles it, until the front's pick is a mode it has
// measured or its own profiles run out. The answer is the fastest profiled mode that fits, by its
// measurement: a prediction never answers, so no pick is over budget by a model's error.
class TransferSearchStrategy : public Strategy
{
public:
    static constexpr int kShared = 8;  // profiled before any budget
    static constexpr int kMaxOwn = 7;  // per budget: at most 15 modes answer it, as gmd

    QString name() const override { return QStringLiteral("pts"); }
    Status prepare(ProfilingOracle &oracle, const StrategyContext &context) override;
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;

private:
    StrategyContext m_context;
    QSet<int> m_shared;
};

}  // namespace ptwb
