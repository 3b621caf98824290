#include "optimize/budgetsearch.h"

#include <cmath>
#include <limits>

namespace ptwb {

const QStringList &BudgetSearch::strategies()
{
    static const QStringList names {QStringLiteral("gmd"), QStringLiteral("bs"),
                                    QStringLiteral("pts")};
    return names;
}

namespace {

// The same mode on the mirrored grid: every value negated, so ascending order runs from the
// highest clock down (the search only compares values and looks modes up).
PowerMode mirrored(const PowerMode &mode)
{
    PowerMode out;
    for (Dimension dimension : kAllDimensions)
        out.setValue(dimension, -mode.value(dimension));
    return out;
}

}  // namespace

Expected<SearchStep> BudgetSearch::step(const QString &strategyName, double budget, bool timeBudget,
                                        const StrategyContext &context,
                                        const QVector<PowerMode> &candidates,
                                        const QHash<PowerMode, SearchObservation> &measured)
{
    using Result = Expected<SearchStep>;
    if (!strategies().contains(strategyName))
        return Result::badInput(InputField::Strategies,
                                QStringLiteral("strategy '%1': a device search runs one of %2")
                                    .arg(strategyName, strategies().join(QStringLiteral(", "))));
    // pts asks its reference model about real modes: the mirrored grid is not one.
    if (timeBudget && strategyName == QLatin1String("pts"))
        return Result::badInput(InputField::Strategies,
                                QStringLiteral("pts answers power budgets; for a time budget "
                                               "use gmd or bs"));
    if (candidates.isEmpty())
        return Result::failure(QStringLiteral("the device has no modes to search"),
                               ErrorKind::BadInput);
    constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
    constexpr double kNever = std::numeric_limits<double>::infinity();
    // For a time budget, "power" below is the time that must fit and "time" the power to
    // lower, on the mirrored grid.
    TrainingData data;
    for (const PowerMode &mode : candidates) {
        const auto it = measured.constFind(mode);
        const bool known = it != measured.cend();
        const double power = !known ? kUnknown : it->failed ? kNever : it->powerW;
        const double time = !known ? kUnknown : it->failed ? kNever : it->timeMs;
        data.modes.append(timeBudget ? mirrored(mode) : mode);
        data.powerW.append(timeBudget ? time : power);
        data.timeMs.append(timeBudget ? power : time);
    }
    ProfilingOracle oracle(data);
    std::unique_ptr<Strategy> strategy = Strategy::create(strategyName);
    SearchStep step;
    try {
        if (Status prepared = strategy->prepare(oracle, context); !prepared)
            return passOn<Result>(prepared);
        const Pick pick = strategy->choose(budget, oracle);
        if (pick.row < 0)
            return Result::failure(QStringLiteral("%1 picked no mode").arg(strategyName));
        step.answer = candidates[pick.row];
        step.fits = data.powerW[pick.row] <= budget;
    } catch (const ProfileNeeded &needed) {
        step.next = candidates[needed.row];
    }
    step.profiled = oracle.profiledCount();
    return step;
}

}  // namespace ptwb
