#pragma once

#include "concurrent/pairpredictor.h"
#include "optimize/tradeoffspace.h"

namespace ptwb {

// Every (mode, inference batch) pair of a training workload and an inference workload on one
// device, with the best known cost of each: the training workload's measured values where
// measured and its model's predictions elsewhere (TradeoffSpace), the inference workload's
// measured pairs as they are, and the other pairs predicted by the calibration of
// PairPredictions with the training workload as the shape over modes.
class ConcurrentSpace
{
public:
    // The chosen pair of a problem: the best predicted feasible one.
    struct Choice
    {
        int pair = -1;  // -1 when no pair is predicted feasible
        ConcurrentOutcome outcome;  // as predicted (measured values where measured)
    };

    static Expected<ConcurrentSpace> build(const TradeoffSpace &training,
                                           const QVector<Measurement> &inference,
                                           const QString &inferenceName);

    const ConcurrentData &data() const { return m_data; }
    const PairPredictions &predictions() const { return m_predicted; }
    const TradeoffSpace &training() const { return m_training; }
    int pairCount() const { return m_data.pairCount(); }
    // Both workloads measured at this pair.
    bool isMeasured(int pair) const;
    int measuredPairs() const { return m_measuredPairs; }

    // The cost of a pair, `sigmas` standard deviations toward slow and hungry (the safe pick).
    PairCost cost(int pair, double sigmas = 0) const
    {
        return m_predicted.cost(m_data, pair, sigmas);
    }
    ConcurrentOutcome assessPair(const ConcurrentProblem &problem, int pair,
                                 double sigmas = 0) const
    {
        return assess(problem, cost(pair, sigmas));
    }
    Choice choose(const ConcurrentProblem &problem, double sigmas = 0) const;

private:
    TradeoffSpace m_training;
    ConcurrentData m_data;
    PairPredictions m_predicted;
    int m_measuredPairs = 0;
};

}  // namespace ptwb
