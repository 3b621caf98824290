#pragma once

#include "optimize/strategy.h"

namespace ptwb {

// The observed front over every candidate: the ground truth.
class OptimalStrategy : public Strategy
{
public:
    QString name() const override { return QStringLiteral("optimal"); }
    Status prepare(ProfilingOracle &oracle, const StrategyContext &context) override;
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;

private:
    ParetoFront m_front;
};

// Always the fastest mode of the device (all cores, every clock at its highest).
class MaxnStrategy : public Strategy
{
public:
    QString name() const override { return QStringLiteral("maxn"); }
    Status prepare(ProfilingOracle &oracle, const StrategyContext &context) override;
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;

private:
    int m_row = -1;
};

// The fastest stock nvpmodel preset whose observed power fits; the lowest-power one otherwise.
class PresetStrategy : public Strategy
{
public:
    QString name() const override { return QStringLiteral("nvp"); }
    Status prepare(ProfilingOracle &oracle, const StrategyContext &context) override;
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;

private:
    ParetoFront m_front;
};

// N random modes profiled; the pick comes from their observed front.
class RandomStrategy : public Strategy
{
public:
    QString name() const override { return QStringLiteral("rnd"); }
    Status prepare(ProfilingOracle &oracle, const StrategyContext &context) override;
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;

private:
    ParetoFront m_front;
};

// Multi-dimensional binary search, per budget: first along the diagonal (the same fraction of
// every dimension's range) for the highest point that fits, then each dimension in turn (GPU,
// memory, CPU, cores) raised by binary search as far as it still fits. About log2 of the size of
// the space in profiles per budget.
class BinarySearchStrategy : public Strategy
{
public:
    QString name() const override { return QStringLiteral("bs"); }
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;
    int lastTries() const { return m_tries; }

private:
    int m_tries = 0;
};

// Gradient descent over the mode dimensions (our reading of Fulcrum's GMD), per budget: a
// pattern search on the grid indices from the middle mode: over budget, first a step down along
// every dimension at once (power's descent direction); then to the first neighbour (a step of s
// along one dimension) that improves "fits, then faster; else less power"; halving s when
// nothing improves; within a budget of 15 profiled modes.
class GradientDescentStrategy : public Strategy
{
public:
    static constexpr int kMaxProfiles = 15;
    QString name() const override { return QStringLiteral("gmd"); }
    Pick choose(double powerBudgetW, ProfilingOracle &oracle) override;
    int lastTries() const { return m_tries; }

private:
    int m_tries = 0;
};

// The best observed of `points` for a budget: fastest that fits, else the lowest power.
Pick bestObserved(const QVector<TradeoffPoint> &points, double powerBudgetW);

}  // namespace ptwb
