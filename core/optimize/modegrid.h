#pragma once

#include "optimize/strategy.h"

#include <array>
#include <optional>

namespace ptwb {

// A position on the grid of each dimension's distinct values: an index per dimension.
using GridPosition = std::array<int, kDimensionCount>;

// The candidates seen as a grid, for the searches that move along the dimensions (bs, gmd).
// A position no candidate holds (a partial sweep) stands for the nearest candidate.
class ModeGrid
{
public:
    explicit ModeGrid(const ProfilingOracle &oracle);

    int size(Dimension dimension) const { return m_sizes[static_cast<int>(dimension)]; }
    // The middle value of every dimension.
    GridPosition middle() const;
    // The candidate at `position`, or the nearest one (grid steps scaled by each dimension's
    // size); -1 only when there are no candidates.
    int rowAt(const GridPosition &position) const;

private:
    const ProfilingOracle &m_oracle;
    GridPosition m_sizes {};
    QVector<GridPosition> m_positions;  // of every candidate row
};

// One budget problem of a search: profiles through the oracle, each distinct mode once and at
// most `limit` of them, and answers with the fastest fitting mode it saw.
class BudgetProbe
{
public:
    BudgetProbe(ProfilingOracle &oracle, const ModeGrid &grid, double budgetW, int limit);

    // The observed point at a position; nullopt once `limit` modes were profiled and this one
    // was not among them.
    std::optional<TradeoffPoint> at(const GridPosition &position);
    bool fits(const TradeoffPoint &point) const { return point.powerW <= m_budgetW; }
    int tries() const { return int(m_seen.size()); }
    bool exhausted() const { return tries() >= m_limit; }
    Pick best() const;

private:
    ProfilingOracle &m_oracle;
    const ModeGrid &m_grid;
    double m_budgetW;
    int m_limit;
    QHash<int, TradeoffPoint> m_seen;  // by candidate row
    QVector<TradeoffPoint> m_order;  // the same, in the order profiled: a deterministic answer
};

}  // namespace ptwb
