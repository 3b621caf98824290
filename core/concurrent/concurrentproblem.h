#pragma once

#include <QString>

namespace ptwb {

// One problem of concurrent training and inference (Fulcrum; docs/optimization.md, "Concurrent
// training and inference"): requests arrive at `arrivalRate` per second, every request must be
// answered within `latencyBudgetS`, and the device must stay within `powerBudgetW`.
struct ConcurrentProblem
{
    double arrivalRate = 0;  // requests per second (λ)
    double latencyBudgetS = 0;  // L
    double powerBudgetW = 0;  // P
};

// What one (power mode, inference batch) pair costs: the training workload's minibatch at the
// mode and the inference workload's minibatch of `batch` requests at the mode.
struct PairCost
{
    double trainTimeMs = 0;  // tT(m)
    double trainPowerW = 0;  // pT(m)
    double inferTimeMs = 0;  // tI(m, b)
    double inferPowerW = 0;  // pI(m, b)
    int batch = 0;  // b
};

// A pair judged against a problem. The device runs an inference minibatch each time `batch`
// requests have arrived (a cycle of b/λ seconds) and trains in between:
//   keeps up     tI <= b/λ
//   latency      b/λ + tI <= L   (the first request waits for the batch to fill)
//   power        max(pT, pI) <= P
//   n            floor((b/λ - tI) / tT) training minibatches per cycle
//   throughput   n·λ/b training minibatches per second
struct ConcurrentOutcome
{
    bool keepsUp = false;
    bool meetsLatency = false;
    bool meetsPower = false;
    int minibatchesPerCycle = 0;  // n; 0 when it does not keep up
    double throughput = 0;  // training minibatches per second
    double latencyS = 0;  // of the first request of a batch: the worst one
    double powerW = 0;  // max(pT, pI)

    bool feasible() const { return keepsUp && meetsLatency && meetsPower; }
};

ConcurrentOutcome assess(const ConcurrentProblem &problem, const PairCost &cost);

// The problem's order: a feasible outcome beats an infeasible one; among feasible ones the
// higher throughput, then the lower latency. True when `a` is strictly better than `b`.
bool isBetter(const ConcurrentOutcome &a, const ConcurrentOutcome &b);

// The continuous training rate (1 - tI·λ/b) / tT in minibatches per second, before n is rounded
// down: the searches' objective between profiles. Negative when inference does not keep up.
double continuousThroughput(const ConcurrentProblem &problem, const PairCost &cost);

}  // namespace ptwb
