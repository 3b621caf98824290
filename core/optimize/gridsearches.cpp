#include "optimize/gridsearches.h"

#include "optimize/modegrid.h"

#include <algorithm>
#include <cmath>

namespace ptwb {

namespace {

// Time bought per watt between two profiled modes; 0 when their power differs by less than 1 W
// (within the meter's noise: no direction to follow).
double slopeBetween(const TradeoffPoint &a, const TradeoffPoint &b)
{
    const double dPower = std::abs(a.powerW - b.powerW);
    return dPower < 1.0 ? 0.0 : std::abs(a.timeMs - b.timeMs) / dPower;
}

}  // namespace

Pick BinarySearchStrategy::choose(double powerBudgetW, ProfilingOracle &oracle)
{
    const ModeGrid grid(oracle);
    BudgetProbe probe(oracle, grid, powerBudgetW, oracle.candidates().size());
    const Dimension order[] = {Dimension::Cpu, Dimension::Gpu, Dimension::Cores, Dimension::Emc};
    // Each dimension's interval [low, high] still holding its answer, halved in turn; the
    // others are held at their current value (the middle of their interval until verified).
    GridPosition low {};
    GridPosition high {};
    for (Dimension dimension : kAllDimensions)
        high[static_cast<int>(dimension)] = grid.size(dimension) - 1;
    GridPosition current = grid.middle();
    for (bool narrowed = true; narrowed;) {
        narrowed = false;
        for (Dimension dimension : order) {
            const int d = static_cast<int>(dimension);
            if (low[d] >= high[d])
                continue;
            narrowed = true;
            const int middle = (low[d] + high[d] + 1) / 2;
            GridPosition trial = current;
            trial[d] = middle;
            const std::optional<TradeoffPoint> point = probe.at(trial);
            // Power rises with every knob: the values that fit are a prefix of the range.
            if (point && probe.fits(*point))
                low[d] = middle;
            else
                high[d] = middle - 1;
            current[d] = (low[d] + high[d] + 1) / 2;
        }
    }
    m_tries = probe.tries();
    return probe.best();
}

Pick GradientDescentStrategy::choose(double powerBudgetW, ProfilingOracle &oracle)
{
    const ModeGrid grid(oracle);
    BudgetProbe probe(oracle, grid, powerBudgetW, m_maxProfiles);
    GridPosition current = grid.middle();
    std::optional<TradeoffPoint> here = probe.at(current);
    if (!here) {
        m_tries = probe.tries();
        return probe.best();
    }
    // Each dimension's remaining range [low, high]: a binary step moves halfway through it.
    GridPosition low {};
    GridPosition high {};
    std::array<double, kDimensionCount> slope {};
    for (Dimension dimension : kAllDimensions) {
        const int d = static_cast<int>(dimension);
        high[d] = grid.size(dimension) - 1;
        GridPosition extreme = current;
        extreme[d] = probe.fits(*here) ? high[d] : 0;
        if (extreme == current)
            continue;
        if (const std::optional<TradeoffPoint> point = probe.at(extreme))
            slope[d] = slopeBetween(*here, *point);
    }
    for (int move = 0; move < kMaxMoves && !probe.exhausted(); ++move) {
        const bool fitsHere = probe.fits(*here);
        const int d = int(std::max_element(slope.cbegin(), slope.cend()) - slope.cbegin());
        if (slope[d] <= 0)
            break;
        // Toward the budget: up when this mode fits (faster), down when it does not.
        if (fitsHere)
            low[d] = current[d];
        else
            high[d] = current[d];
        const int target = fitsHere ? (current[d] + high[d] + 1) / 2 : (low[d] + current[d]) / 2;
        if (target == current[d]) {
            slope[d] = 0;  // its range is used up
            continue;
        }
        GridPosition next = current;
        next[d] = target;
        const std::optional<TradeoffPoint> point = probe.at(next);
        if (!point)
            break;
        slope[d] = slopeBetween(*here, *point);
        if (fitsHere && !probe.fits(*point)) {
            high[d] = target - 1;  // overshot: stay on the fitting mode
        } else {
            current = next;
            here = point;
        }
        if (low[d] >= high[d])
            slope[d] = 0;
    }
    m_tries = probe.tries();
    return probe.best();
}

}  // namespace ptwb
