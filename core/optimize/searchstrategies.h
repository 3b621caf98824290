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

// The best observed of `points` for a budget: fastest that fits, else the lowest power.
Pick bestObserved(const QVector<TradeoffPoint> &points, double powerBudgetW);

}  // namespace ptwb
