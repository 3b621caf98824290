#pragma once

#include <QVector>

#include <algorithm>
#include <cmath>

#include <optional>

namespace ptwb {

// One candidate: a mode (by position in the caller's list) with its power and time, observed
// or predicted. Energy is power x time.
struct TradeoffPoint
{
    int mode = -1;
    double powerW = 0;
    double timeMs = 0;
    double energy() const { return powerW * timeMs; }
};

// The answer to a budget query: the best mode that fits, or, when none fits, the mode closest to
// fitting (so a caller can say "no mode fits; the closest is ...").
struct BudgetAnswer
{
    bool fits = false;
    TradeoffPoint point;
};

// Pareto fronts over (power, time), (power, energy) and (time, energy), built in O(n log n), and
// budget queries in O(log n) on them. Minimising both coordinates; among exact duplicates the
// mode listed first is kept. Points with a non-finite or negative coordinate (a model that
// diverged) are left out rather than allowed to break the ordering.
class ParetoFront
{
public:
    ParetoFront() = default;
    explicit ParetoFront(const QVector<TradeoffPoint> &points);

    bool isEmpty() const { return m_powerTime.isEmpty(); }
    // The (power, time) front by increasing power (and so strictly decreasing time).
    const QVector<TradeoffPoint> &powerTime() const { return m_powerTime; }

    // Fastest mode with power <= budget; if none, the lowest-power mode.
    std::optional<BudgetAnswer> fastestWithin(double powerBudgetW) const;
    // Lowest-power mode with time <= budget; if none, the fastest mode.
    std::optional<BudgetAnswer> lowestPowerWithin(double timeBudgetMs) const;
    // Lowest-energy mode with power <= budget; if none, the lowest-power mode.
    std::optional<BudgetAnswer> lowestEnergyWithinPower(double powerBudgetW) const;
    // Lowest-energy mode with time <= budget; if none, the fastest mode.
    std::optional<BudgetAnswer> lowestEnergyWithinTime(double timeBudgetMs) const;

    // The non-dominated subset of `points` for two coordinates, sorted by the first ascending.
    template<typename First, typename Second>
    static QVector<TradeoffPoint> front(QVector<TradeoffPoint> points, First first, Second second);

private:
    QVector<TradeoffPoint> m_powerTime;  // by power ascending, time strictly descending
    QVector<TradeoffPoint> m_powerEnergy;  // by power ascending, energy strictly descending
    QVector<TradeoffPoint> m_timeEnergy;  // by time ascending, energy strictly descending
};

template<typename First, typename Second>
QVector<TradeoffPoint> ParetoFront::front(QVector<TradeoffPoint> points, First first, Second second)
{
    // A NaN breaks the strict weak ordering std::stable_sort relies on (undefined behaviour,
    // seen as modes out of range), so unusable points go before sorting.
    points.erase(std::remove_if(points.begin(), points.end(),
                                [&](const TradeoffPoint &p) {
                                    return !(std::isfinite(first(p)) && first(p) >= 0 &&
                                             std::isfinite(second(p)) && second(p) >= 0);
                                }),
                 points.end());
    std::stable_sort(
        points.begin(), points.end(), [&](const TradeoffPoint &a, const TradeoffPoint &b) {
            return first(a) < first(b) || (first(a) == first(b) && second(a) < second(b));
        });
    QVector<TradeoffPoint> out;
    for (const TradeoffPoint &p : points) {
        if (out.isEmpty() || second(p) < second(out.back()))
            out.append(p);
    }
    return out;
}

}  // namespace ptwb
