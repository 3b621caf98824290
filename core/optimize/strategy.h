#pragma once

#include "optimize/paretofront.h"
#include "predict/powermodel.h"

#include <QHash>
#include <QSet>

#include <memory>
#include <random>

namespace ptwb {

// Thrown by ProfilingOracle::profile for a candidate not measured yet (NaN time or power): a
// search on a device stops there and profiles that mode first (BudgetSearch).
struct ProfileNeeded
{
    int row = -1;
};

// The modes a strategy may choose from (a workload's measured modes, in evaluation) and the
// only way to learn their observed time and power: profiling, which is counted.
class ProfilingOracle
{
public:
    explicit ProfilingOracle(const TrainingData &target);

    const TrainingData &candidates() const { return m_target; }
    // Observed (power, time) of a candidate row; counts it as profiled. Throws ProfileNeeded
    // when the candidate has no measurement yet.
    TradeoffPoint profile(int row);
    int profiledCount() const { return int(m_profiled.size()); }
    // Calls to profile(), repeats included: on a device each one is a measurement.
    int profileCalls() const { return m_calls; }
    const QSet<int> &profiled() const { return m_profiled; }
    void reset()
    {
        m_profiled.clear();
        m_calls = 0;
        m_prepared.clear();
        m_budget.clear();
    }

    // Per-budget accounting: what was profiled before any budget (in prepare) informs every
    // budget; beginBudget() starts counting what one budget's search profiles besides.
    void markPrepared() { m_prepared = m_profiled; }
    void beginBudget() { m_budget.clear(); }
    // Distinct modes that answered the current budget: the prepared ones and the budget's own.
    int budgetProfiledCount() const;

    // Row of a mode among the candidates, or -1.
    int rowOf(const PowerMode &mode) const { return m_rows.value(mode, -1); }
    // Distinct values of each dimension among the candidates, ascending.
    const QVector<qint64> &values(Dimension dimension) const
    {
        return m_values[static_cast<int>(dimension)];
    }

private:
    const TrainingData &m_target;
    QHash<PowerMode, int> m_rows;
    QVector<qint64> m_values[kDimensionCount];
    QSet<int> m_profiled;
    int m_calls = 0;
    QSet<int> m_prepared;
    QSet<int> m_budget;
};

// What a strategy picked for one budget: a candidate row, and whether the strategy believed it
// fits (false: nothing was believed to fit and this is the closest).
struct Pick
{
    int row = -1;
    bool fits = true;
};

inline Pick pickFrom(const std::optional<BudgetAnswer> &answer)
{
    return answer ? Pick {answer->point.mode, answer->fits} : Pick {-1, false};
}

// Everything a strategy may use besides the oracle.
struct StrategyContext
{
    QString deviceKind;
    std::shared_ptr<const PowerModel> reference;  // for pt and safe
    int samples = 50;  // modes to profile, where that applies
    quint64 seed = 0;
};

// One way of choosing a power mode for a power budget (docs/optimization.md).
class Strategy
{
public:
    virtual ~Strategy() = default;
    virtual QString name() const = 0;
    // Once per repeat, before any budget: may profile modes and build models.
    virtual Status prepare(ProfilingOracle &oracle, const StrategyContext &context) { return {}; }
    // For one power budget; may profile more modes.
    virtual Pick choose(double powerBudgetW, ProfilingOracle &oracle) = 0;

    // optimal, maxn, nvp, rnd, nn, pt, safe, bs, gmd, als.
    static QStringList names();
    static std::unique_ptr<Strategy> create(const QString &name);
};

// Draws `count` distinct candidate rows.
QVector<int> randomRows(int candidates, int count, std::mt19937_64 &rng);

}  // namespace ptwb
