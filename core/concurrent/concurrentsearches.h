#pragma once

#include "concurrent/concurrentstrategy.h"

namespace ptwb {

class Strategy;

// The Fulcrum study's searches for the concurrent problem (docs/optimization.md). Both fix the
// inference batch first and search the power mode with the training problem's own search
// (gridsearches.h), on a view of the modes where a mode's power is max(pT, pI) and its "time"
// the seconds per training minibatch the pair leaves (1 / its continuous throughput; far off
// when it breaks the latency), then answer with the best feasible pair they profiled.

// gmd: the largest batch that meets the latency at MAXN, a gradient descent over the modes
// there; backtracks to the next smaller such batch when nothing profiled is feasible. At most
// kMaxProfiles pairs per problem.
class ConcurrentGradientDescent : public ConcurrentStrategy
{
public:
    static constexpr int kMaxProfiles = 25;
    QString name() const override { return QStringLiteral("gmd"); }
    int choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle) override;
};

// bs: binary search over the batch sizes that meet the latency at MAXN (a batch "fits" when the
// binary search over the modes at it finds a feasible pair; then larger ones are tried), with
// the multi-dimensional binary search over the modes at each batch tried.
class ConcurrentBinarySearch : public ConcurrentStrategy
{
public:
    QString name() const override { return QStringLiteral("bs"); }
    int choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle) override;
};

// Runs a training-problem search over the modes at one batch size of a concurrent problem;
// every mode it profiles is profiled as that pair. Returns the best feasible pair profiled at
// the batch, or -1.
int searchModesAtBatch(Strategy &search, const ConcurrentProblem &problem, ConcurrentOracle &oracle,
                       int batchIndex);

}  // namespace ptwb
