#include "optimize/paretofront.h"

#include <algorithm>

namespace ptwb {

namespace {

double power(const TradeoffPoint &p)
{
    return p.powerW;
}
double time(const TradeoffPoint &p)
{
    return p.timeMs;
}
double energy(const TradeoffPoint &p)
{
    return p.energy();
}

// On a front sorted by `key` ascending (and the other coordinate descending), the last point
// with key <= budget is the best one that fits; the first point is the closest when none does.
template<typename Key>
std::optional<BudgetAnswer> lastWithin(const QVector<TradeoffPoint> &front, double budget, Key key)
{
    if (front.isEmpty())
        return std::nullopt;
    const auto it =
        std::upper_bound(front.cbegin(), front.cend(), budget,
                         [&key](double b, const TradeoffPoint &p) { return b < key(p); });
    if (it == front.cbegin())
        return BudgetAnswer {false, front.front()};
    return BudgetAnswer {true, *(it - 1)};
}

}  // namespace

ParetoFront::ParetoFront(const QVector<TradeoffPoint> &points)
    : m_powerTime(front(points, power, time))
    , m_powerEnergy(front(points, power, energy))
    , m_timeEnergy(front(points, time, energy))
{
}

std::optional<BudgetAnswer> ParetoFront::fastestWithin(double powerBudgetW) const
{
    return lastWithin(m_powerTime, powerBudgetW, power);
}

std::optional<BudgetAnswer> ParetoFront::lowestPowerWithin(double timeBudgetMs) const
{
    if (m_powerTime.isEmpty())
        return std::nullopt;
    // Time falls along the front: the first point with time <= budget has the lowest power.
    const auto it = std::lower_bound(m_powerTime.cbegin(), m_powerTime.cend(), timeBudgetMs,
                                     [](const TradeoffPoint &p, double b) { return p.timeMs > b; });
    if (it == m_powerTime.cend())
        return BudgetAnswer {false, m_powerTime.back()};
    return BudgetAnswer {true, *it};
}

std::optional<BudgetAnswer> ParetoFront::lowestEnergyWithinPower(double powerBudgetW) const
{
    return lastWithin(m_powerEnergy, powerBudgetW, power);
}

std::optional<BudgetAnswer> ParetoFront::lowestEnergyWithinTime(double timeBudgetMs) const
{
    std::optional<BudgetAnswer> answer = lastWithin(m_timeEnergy, timeBudgetMs, time);
    return answer;
}

}  // namespace ptwb
