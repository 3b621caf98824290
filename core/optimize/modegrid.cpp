#include "optimize/modegrid.h"

#include "optimize/searchstrategies.h"

#include <algorithm>
#include <limits>

namespace ptwb {

ModeGrid::ModeGrid(const ProfilingOracle &oracle)
    : m_oracle(oracle)
{
    for (Dimension dimension : kAllDimensions)
        m_sizes[static_cast<int>(dimension)] = int(oracle.values(dimension).size());
    const TrainingData &candidates = oracle.candidates();
    m_positions.reserve(candidates.size());
    for (const PowerMode &mode : candidates.modes) {
        GridPosition position {};
        for (Dimension dimension : kAllDimensions) {
            const QVector<qint64> &values = oracle.values(dimension);
            position[static_cast<int>(dimension)] =
                int(std::lower_bound(values.cbegin(), values.cend(), mode.value(dimension)) -
                    values.cbegin());
        }
        m_positions.append(position);
    }
}

GridPosition ModeGrid::middle() const
{
    GridPosition position {};
    for (int d = 0; d < kDimensionCount; ++d)
        position[d] = (m_sizes[d] - 1) / 2;
    return position;
}

int ModeGrid::rowAt(const GridPosition &position) const
{
    PowerMode mode;
    for (Dimension dimension : kAllDimensions) {
        const int d = static_cast<int>(dimension);
        mode.setValue(dimension,
                      m_oracle.values(dimension)[std::clamp(position[d], 0, m_sizes[d] - 1)]);
    }
    if (const int row = m_oracle.rowOf(mode); row >= 0)
        return row;
    int nearest = -1;
    double closest = std::numeric_limits<double>::infinity();
    for (int row = 0; row < m_positions.size(); ++row) {
        double distance = 0;
        for (int d = 0; d < kDimensionCount; ++d)
            distance +=
                std::abs(m_positions[row][d] - position[d]) / double(std::max(1, m_sizes[d] - 1));
        if (distance < closest) {
            closest = distance;
            nearest = row;
        }
    }
    return nearest;
}

BudgetProbe::BudgetProbe(ProfilingOracle &oracle, const ModeGrid &grid, double budgetW, int limit)
    : m_oracle(oracle)
    , m_grid(grid)
    , m_budgetW(budgetW)
    , m_limit(limit)
{
}

std::optional<TradeoffPoint> BudgetProbe::at(const GridPosition &position)
{
    const int row = m_grid.rowAt(position);
    if (row < 0)
        return std::nullopt;
    if (const auto it = m_seen.constFind(row); it != m_seen.cend())
        return *it;
    if (exhausted())
        return std::nullopt;
    const TradeoffPoint point = m_oracle.profile(row);
    m_seen.insert(row, point);
    m_order.append(point);
    return point;
}

Pick BudgetProbe::best() const
{
    return bestObserved(m_order, m_budgetW);
}

}  // namespace ptwb
