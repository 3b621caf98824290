#pragma once

#include "optimize/strategy.h"

namespace ptwb {

// The Fulcrum study's two searches over the mode grid, each answering one budget problem with
// its own profiles (docs/optimization.md, "bs" and "gmd").

// Multi-dimensional binary search: one dimension at a time in a fixed order (CPU, GPU, cores,
// memory), the others held, binary search for the highest value that fits, keeping the half
// that fits; two passes over the dimensions, starting from the middle of every range.
class BinarySearchStrategy : public Strategy
{
public:
    QString name() const override { return QStringLiteral("bs"); }
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;
    int lastTries() const { return m_tries; }

private:
    int m_tries = 0;
};

// Multi-dimensional gradient descent: from the middle mode, a slope |dtime/dpower| per
// dimension from a probe to its extreme; binary steps toward the budget along the steepest
// dimension, re-measuring its slope after each; at most 14 moves and 15 profiled modes.
class GradientDescentStrategy : public Strategy
{
public:
    static constexpr int kMaxProfiles = 15;
    static constexpr int kMaxMoves = 14;
    // A search inside a larger one (the concurrent problem's) may have fewer profiles left.
    explicit GradientDescentStrategy(int maxProfiles = kMaxProfiles)
        : m_maxProfiles(maxProfiles)
    {
    }
    QString name() const override { return QStringLiteral("gmd"); }
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;
    int lastTries() const { return m_tries; }

private:
    int m_maxProfiles;
    int m_tries = 0;
};

}  // namespace ptwb
