#include "concurrent/concurrentproblem.h"

#include <algorithm>
#include <cmath>

namespace ptwb {

namespace {

// Slack for n = floor(x) when x lands on a whole number up to rounding: (1.0 - 0.2) / 0.1 is
// 7.999999... in doubles, and is 8 minibatches.
constexpr double kFloorSlack = 1e-9;

}  // namespace

ConcurrentOutcome assess(const ConcurrentProblem &problem, const PairCost &cost)
{
    ConcurrentOutcome outcome;
    const double cycleS = cost.batch / problem.arrivalRate;
    const double inferS = cost.inferTimeMs / 1000.0;
    const double trainS = cost.trainTimeMs / 1000.0;
    outcome.powerW = std::max(cost.trainPowerW, cost.inferPowerW);
    outcome.latencyS = cycleS + inferS;
    outcome.keepsUp = std::isfinite(inferS) && inferS <= cycleS;
    outcome.meetsLatency = outcome.latencyS <= problem.latencyBudgetS;
    outcome.meetsPower = outcome.powerW <= problem.powerBudgetW;
    if (outcome.keepsUp && std::isfinite(trainS) && trainS > 0) {
        outcome.minibatchesPerCycle = int(std::floor((cycleS - inferS) / trainS + kFloorSlack));
        outcome.throughput = outcome.minibatchesPerCycle / cycleS;
    }
    return outcome;
}

bool isBetter(const ConcurrentOutcome &a, const ConcurrentOutcome &b)
{
    if (a.feasible() != b.feasible())
        return a.feasible();
    if (a.throughput != b.throughput)
        return a.throughput > b.throughput;
    return a.latencyS < b.latencyS;
}

double continuousThroughput(const ConcurrentProblem &problem, const PairCost &cost)
{
    const double cycleS = cost.batch / problem.arrivalRate;
    return (1.0 - cost.inferTimeMs / 1000.0 / cycleS) / (cost.trainTimeMs / 1000.0);
}

}  // namespace ptwb
