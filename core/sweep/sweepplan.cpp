#include "sweep/sweepplan.h"

#include "optimize/budgetsearch.h"
#include "sweep/capladder.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>

namespace ptwb {

Expected<QVector<int>> SweepPlan::parseBatchSizes(const QString &text)
{
    using Result = Expected<QVector<int>>;
    QVector<int> sizes;
    if (text.trimmed().isEmpty())
        return sizes;
    const QStringList entries = text.split(QLatin1Char(','));
    if (entries.size() > kMaxBatchSizes) {
        return Result::badInput(InputField::BatchSizes,
                                QStringLiteral("%1 batch sizes; expected at most %2")
                                    .arg(entries.size())
                                    .arg(kMaxBatchSizes));
    }
    for (const QString &entry : entries) {
        bool ok = false;
        const int size = entry.trimmed().toInt(&ok);
        if (!ok || size < 1 || size > kMaxBatchSize) {
            return Result::badInput(InputField::BatchSizes,
                                    QStringLiteral("'%1': expected a minibatch size of 1 to %2 "
                                                   "(a list such as 1,4,16,32,64)")
                                        .arg(entry.trimmed().left(40))
                                        .arg(kMaxBatchSize));
        }
        if (sizes.contains(size)) {
            return Result::badInput(InputField::BatchSizes,
                                    QStringLiteral("%1 is listed twice").arg(size));
        }
        sizes.append(size);
    }
    return sizes;
}

Expected<QVector<PowerMode>> SweepPlan::selectModes(const DeviceSpec &device,
                                                    const QString &modeSet, quint64 seed)
{
    using Result = Expected<QVector<PowerMode>>;
    const auto bad = [&modeSet](const QString &why) {
        return Result::badInput(
            InputField::Modes,
            QStringLiteral("'%1': %2; expected all, random:N, als:N, grid:SPEC (e.g. "
                           "grid:cores=even;cpu=every:2:2), search:gmd|bs:WATTS or "
                           "cap:WATTS (with batch sizes)")
                .arg(modeSet, why));
    };
    const ModeSpace full(device);
    QVector<PowerMode> modes;
    if (modeSet == QLatin1String("all")) {
        modes.reserve(int(full.size()));
        for (qint64 i = 0; i < full.size(); ++i)
            modes.append(full.mode(i));
    } else if (modeSet.startsWith(QLatin1String("random:"))) {
        bool ok = false;
        const qint64 count = modeSet.mid(7).toLongLong(&ok);
        if (!ok || count < 1 || count > full.size())
            return bad(QStringLiteral("N must be between 1 and %1").arg(full.size()));
        std::vector<qint64> indices(size_t(full.size()));
        std::iota(indices.begin(), indices.end(), 0);
        std::mt19937_64 rng(seed);
        std::shuffle(indices.begin(), indices.end(), rng);
        for (qint64 i = 0; i < count; ++i)
            modes.append(full.mode(indices[size_t(i)]));
    } else if (modeSet.startsWith(QLatin1String("als:"))) {
        // Adaptive: the first random modes now; active learning adds the rest as it goes.
        bool ok = false;
        const qint64 count = modeSet.mid(4).toLongLong(&ok);
        if (!ok || count < kAdaptiveStart || count > full.size())
            return bad(
                QStringLiteral("N must be between %1 and %2").arg(kAdaptiveStart).arg(full.size()));
        return selectModes(device, QStringLiteral("random:%1").arg(kAdaptiveStart), seed);
    } else if (modeSet.startsWith(QLatin1String("search:"))) {
        const Expected<std::optional<SearchGoal>> goal = SearchGoal::of(modeSet);
        if (!goal)
            return bad(goal.error());
        // The first mode depends on what the store holds (pts' reference model): SweepSetup
        // asks the search for it when it stores the plan.
    } else if (modeSet.startsWith(QLatin1String("cap:"))) {
        const Expected<std::optional<double>> cap = CapLadder::capOf(modeSet);
        if (!cap)
            return bad(cap.error());
        // The ladder picks one (mode, batch) at a time from what was measured (SweepSetup).
    } else if (modeSet.startsWith(QLatin1String("grid:"))) {
        Expected<ModeSpace> grid = ModeSpace::subGrid(device, modeSet.mid(5));
        if (!grid)
            return bad(grid.error());
        for (qint64 i = 0; i < grid->size(); ++i)
            modes.append(grid->mode(i));
    } else {
        return bad(QStringLiteral("unknown mode set"));
    }
    return modes;
}

QString SearchGoal::budgetText() const
{
    return isTimeBudget() ? QStringLiteral("%1 ms").arg(timeBudgetMs, 0, 'f', 1)
                          : QStringLiteral("%1 W").arg(powerBudgetW, 0, 'f', 1);
}

QString SearchGoal::goalText() const
{
    return (isTimeBudget() ? QStringLiteral("the lowest-power mode within %1")
                           : QStringLiteral("the fastest mode within %1"))
        .arg(budgetText());
}

QString SearchGoal::modeSet() const
{
    const QString base = isTimeBudget()
        ? QStringLiteral("search:%1:%2ms").arg(strategy).arg(timeBudgetMs)
        : QStringLiteral("search:%1:%2").arg(strategy).arg(powerBudgetW);
    return referenceModelId > 0 ? base + QStringLiteral(":ref=%1").arg(referenceModelId) : base;
}

Expected<std::optional<SearchGoal>> SearchGoal::of(const QString &modeSet)
{
    using Result = Expected<std::optional<SearchGoal>>;
    if (!modeSet.startsWith(QLatin1String("search:")))
        return std::optional<SearchGoal>();
    const QStringList parts = modeSet.split(QLatin1Char(':'));
    SearchGoal goal;
    bool ok =
        parts.size() == 3 || (parts.size() == 4 && parts[3].startsWith(QLatin1String("ref=")));
    if (ok && parts.size() == 4) {
        goal.referenceModelId = parts[3].mid(4).toLongLong(&ok);
        ok = ok && goal.referenceModelId > 0;
    }
    if (ok) {
        goal.strategy = parts[1];
        QString budget = parts[2];
        const bool time = budget.endsWith(QLatin1String("ms"));
        if (time)
            budget.chop(2);
        else if (budget.endsWith(QLatin1Char('W')))
            budget.chop(1);
        const double value = budget.toDouble(&ok);
        ok = ok && value > 0 && value < (time ? 1e7 : 1e4);
        (time ? goal.timeBudgetMs : goal.powerBudgetW) = value;
    }
    if (!ok)
        return Result::badInput(InputField::Modes,
                                QStringLiteral("'%1': expected search:STRATEGY:WATTS or "
                                               "search:STRATEGY:MSms with a budget above 0, e.g. "
                                               "search:gmd:30 or search:gmd:150ms (pts: "
                                               "search:pts:30:ref=MODEL_ID)")
                                    .arg(modeSet));
    if (!BudgetSearch::strategies().contains(goal.strategy))
        return Result::badInput(
            InputField::Modes,
            QStringLiteral("'%1': the strategy of a search is one of %2")
                .arg(modeSet, BudgetSearch::strategies().join(QStringLiteral(", "))));
    if ((goal.strategy == QLatin1String("pts")) != (goal.referenceModelId > 0))
        return Result::badInput(InputField::Modes,
                                QStringLiteral("'%1': pts, and only pts, takes a reference model "
                                               "(:ref=MODEL_ID)")
                                    .arg(modeSet));
    return std::optional<SearchGoal>(goal);
}

bool SweepPlan::higherFirst(const PowerMode &a, const PowerMode &b)
{
    return std::tie(a.emcHz, a.gpuHz, a.cpuKHz, a.cores) >
        std::tie(b.emcHz, b.gpuHz, b.cpuKHz, b.cores);
}

void SweepPlan::orderHighToLow(QVector<PowerMode> &modes)
{
    std::stable_sort(modes.begin(), modes.end(), higherFirst);
}

bool SweepPlan::lowersOrKeeps(const PowerMode &from, const PowerMode &to)
{
    return to.cores <= from.cores && to.cpuKHz <= from.cpuKHz && to.gpuHz <= from.gpuHz &&
        to.emcHz <= from.emcHz;
}

int SweepPlan::orderInDecreasingChains(QVector<PowerMode> &modes)
{
    // In high-to-low order, a mode below the chain's last one in every dimension can only come
    // after it (or be equal to it), so one pass over what is left builds a chain: the first
    // mode it can reach is the highest it can reach. O(modes x chains).
    QVector<PowerMode> left = modes;
    orderHighToLow(left);
    QVector<PowerMode> ordered;
    ordered.reserve(left.size());
    int chains = 0;
    while (!left.isEmpty()) {
        ++chains;
        QVector<PowerMode> rest;
        PowerMode last = left.front();
        ordered.append(last);
        for (int i = 1; i < left.size(); ++i) {
            if (lowersOrKeeps(last, left[i])) {
                last = left[i];
                ordered.append(last);
            } else {
                rest.append(left[i]);
            }
        }
        left = std::move(rest);
    }
    modes = std::move(ordered);
    return chains;
}

int SweepPlan::nextInChain(const PowerMode &from, const QVector<PowerMode> &pending)
{
    int highest = -1;
    int reachable = -1;
    for (int i = 0; i < pending.size(); ++i) {
        if (highest < 0 || higherFirst(pending[i], pending[highest]))
            highest = i;
        if (lowersOrKeeps(from, pending[i]) &&
            (reachable < 0 || higherFirst(pending[i], pending[reachable])))
            reachable = i;
    }
    return reachable >= 0 ? reachable : highest;
}

}  // namespace ptwb
