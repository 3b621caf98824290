#include "sweepsetup.h"

#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "optimize/activeselection.h"
#include "predict/powermodel.h"
#include "store/store.h"
#include "store/workloaddefinition.h"
#include "sweep/capladder.h"
#include "sweeprunner.h"

#include <QSet>

#include <memory>

namespace ptwb {

namespace {

// How long profiling a mode should take by the workload's newest model, if it has one: its
// predicted minibatch time for every minibatch, plus a few seconds to settle. Every mode of the
// device, so the modes an adaptive sweep adds later have a prediction too.
std::shared_ptr<QHash<PowerMode, double>> predictedProfileSeconds(Store &store,
                                                                  const SweepRecord &record)
{
    constexpr double kSettleSeconds = 3;
    Expected<ModelRecord> model =
        store.latestModel(record.plan.deviceKind, record.plan.workload, QString());
    if (!model)
        return nullptr;
    Expected<PowerModel> predictor = PowerModel::fromRecord(*model);
    if (!predictor)
        return nullptr;
    const QVector<PowerMode> modes = SweepSetup::allModes(record.plan.deviceKind);
    const ModePredictions predicted = predictor->predict(modes);
    auto seconds = std::make_shared<QHash<PowerMode, double>>();
    for (int i = 0; i < modes.size(); ++i)
        seconds->insert(modes[i],
                        record.plan.minibatches * predicted.timeMs[i] / 1000 + kSettleSeconds);
    return seconds;
}

// For als:N: active learning picks the next batch from every measurement of the workload on
// the device, until N modes are planned or the front has nothing new.
// Every mode at the run's own batch (adaptive and search plans are at one batch size).
QVector<PlannedItem> atOwnBatch(const QVector<PowerMode> &modes)
{
    QVector<PlannedItem> items;
    for (const PowerMode &mode : modes)
        items.append({mode, 0});
    return items;
}

SweepRunner::PlanExtender adaptiveExtender(Store &store, const SweepRecord &record)
{
    if (!record.plan.modeSet.startsWith(QLatin1String("als:")))
        return nullptr;
    const int limit = record.plan.modeSet.mid(4).toInt();
    const QVector<PowerMode> candidates = SweepSetup::allModes(record.plan.deviceKind);
    if (candidates.isEmpty())
        return nullptr;
    return [&store, candidates, limit](const SweepRecord &sweep) -> Expected<QVector<PlannedItem>> {
        using Result = Expected<QVector<PlannedItem>>;
        QSet<PowerMode> seen;  // planned so far, whatever became of them
        for (const SweepItem &item : sweep.items)
            seen.insert(item.mode);
        const int room = limit - int(seen.size());
        if (room <= 0)
            return QVector<PlannedItem>();
        Expected<QVector<Measurement>> rows =
            store.measurements(sweep.plan.device, sweep.plan.workload);
        if (!rows)
            return Result::failure(rows.error());
        const Expected<TrainingData> data = TrainingData::fromMeasurements(
            *rows,
            QStringLiteral("workload '%1' on %2").arg(sweep.plan.workload, sweep.plan.device));
        if (!data)
            return passOn<Result>(data);
        const Expected<QVector<PowerMode>> next = ActiveSelection::next(
            sweep.plan.deviceKind, *data, candidates, seen,
            std::min(room, int(SweepPlan::kAdaptiveBatch)), sweep.plan.seed + quint64(seen.size()));
        if (!next)
            return passOn<Result>(next);
        return atOwnBatch(*next);
    };
}

// What a search strategy may use besides its measurements: pts' stored reference model.
Expected<StrategyContext> searchContext(Store &store, const QString &deviceKind,
                                        const SearchGoal &goal)
{
    StrategyContext context;
    context.deviceKind = deviceKind;
    if (goal.referenceModelId <= 0)
        return context;
    const Expected<ModelRecord> record = store.model(goal.referenceModelId);
    if (!record)
        return passOn<Expected<StrategyContext>>(record);
    Expected<PowerModel> model = PowerModel::fromRecord(*record);
    if (!model)
        return passOn<Expected<StrategyContext>>(model);
    context.reference = std::make_shared<const PowerModel>(std::move(model).value());
    return context;
}

// For search:STRATEGY:WATTS: the next mode the search asks for, one at a time, until it answers.
SweepRunner::PlanExtender searchExtender(Store &store, const SweepRecord &record)
{
    if (!record.plan.modeSet.startsWith(QLatin1String("search:")))
        return nullptr;
    return [&store](const SweepRecord &sweep) -> Expected<QVector<PlannedItem>> {
        using Result = Expected<QVector<PlannedItem>>;
        Expected<SearchStep> step = SweepSetup::searchStep(store, sweep);
        if (!step)
            return passOn<Result>(step);
        if (!step->next)
            return QVector<PlannedItem>();
        for (const SweepItem &item : sweep.items) {
            if (item.mode == *step->next && item.state != SweepItem::State::Pending)
                return Result::failure(QStringLiteral("the search asked again for %1, which it "
                                                      "already profiled")
                                           .arg(item.mode.toCanonical()));
        }
        return QVector<PlannedItem> {{*step->next, 0}};
    };
}

// For cap:WATTS: the ladder's next (mode, batch) from this sweep's own results (a batch that
// ran out of memory, a refused mode and a measured peak each steer it), one at a time.
CapLadder::Lookup capLookup(Store &store, const SweepRecord &sweep)
{
    QHash<QPair<PowerMode, int>, CapLadder::Outcome> outcomes;
    const Expected<QVector<Measurement>> rows =
        store.measurements(sweep.plan.device, sweep.plan.workload);
    QHash<qint64, const Measurement *> byId;
    if (rows) {
        for (const Measurement &m : *rows)
            byId.insert(m.id, &m);
    }
    for (const SweepItem &item : sweep.items) {
        const QPair<PowerMode, int> key {item.mode, item.batchSize};
        if (item.state == SweepItem::State::Failed) {
            const bool memory = item.reason.contains(QLatin1String("out of memory")) ||
                item.reason.startsWith(QLatin1String("does not fit in the device's memory"));
            outcomes.insert(
                key,
                {memory ? CapLadder::Outcome::Kind::OutOfMemory : CapLadder::Outcome::Kind::Failed,
                 0});
        } else if (item.state == SweepItem::State::Done) {
            if (const Measurement *m = byId.value(item.measurementId))
                outcomes.insert(
                    key, {CapLadder::Outcome::Kind::Measured, m->peakPowerW.value_or(m->powerW)});
        }
    }
    return [outcomes](const PowerMode &mode, int batch) -> std::optional<CapLadder::Outcome> {
        const auto it = outcomes.constFind({mode, batch});
        return it == outcomes.cend() ? std::nullopt : std::optional(*it);
    };
}

SweepRunner::PlanExtender capExtender(Store &store, const SweepRecord &record)
{
    const Expected<std::optional<double>> cap = CapLadder::capOf(record.plan.modeSet);
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(record.plan.deviceKind);
    if (!cap || !cap->has_value() || !spec)
        return nullptr;
    const CapLadder ladder(*spec, record.plan.batchSizes, **cap);
    return [&store, ladder](const SweepRecord &sweep) -> Expected<QVector<PlannedItem>> {
        const std::optional<CapLadder::Step> step = ladder.next(capLookup(store, sweep));
        if (!step)
            return QVector<PlannedItem>();
        return QVector<PlannedItem> {{step->mode, step->batch}};
    };
}

}  // namespace

Expected<QHash<PowerMode, Measurement>> SweepSetup::sweepMeasurements(Store &store,
                                                                      const SweepRecord &record)
{
    using Result = Expected<QHash<PowerMode, Measurement>>;
    Expected<QVector<Measurement>> rows =
        store.measurements(record.plan.device, record.plan.workload);
    if (!rows)
        return passOn<Result>(rows);
    QHash<qint64, const Measurement *> byId;
    for (const Measurement &row : *rows)
        byId.insert(row.id, &row);
    QHash<PowerMode, Measurement> out;
    for (const SweepItem &item : record.items) {
        if (item.state != SweepItem::State::Done)
            continue;
        if (const Measurement *row = byId.value(item.measurementId))
            out.insert(item.mode, *row);
    }
    return out;
}

Expected<SearchStep> SweepSetup::searchStep(Store &store, const SweepRecord &record)
{
    const Expected<QHash<PowerMode, Measurement>> measured = sweepMeasurements(store, record);
    if (!measured)
        return passOn<Expected<SearchStep>>(measured);
    return searchStep(store, record, *measured);
}

Expected<SearchStep> SweepSetup::searchStep(Store &store, const SweepRecord &record,
                                            const QHash<PowerMode, Measurement> &measured)
{
    using Result = Expected<SearchStep>;
    const Expected<std::optional<SearchGoal>> goal = SearchGoal::of(record.plan.modeSet);
    if (!goal)
        return passOn<Result>(goal);
    if (!*goal)
        return Result::badInput(InputField::Modes,
                                QStringLiteral("sweep %1 (%2) is not a search")
                                    .arg(record.id)
                                    .arg(record.plan.modeSet));
    // Only this sweep's own results: the search is the record of what it measured.
    QHash<PowerMode, SearchObservation> observed;
    for (const SweepItem &item : record.items) {
        if (item.state == SweepItem::State::Failed)
            observed.insert(item.mode, {0, 0, true});
    }
    for (auto it = measured.cbegin(); it != measured.cend(); ++it)
        observed.insert(it.key(), {it->powerW, it->timeMs, false});
    const Expected<StrategyContext> context = searchContext(store, record.plan.deviceKind, **goal);
    if (!context)
        return passOn<Result>(context);
    return BudgetSearch::step((*goal)->strategy, (*goal)->budget(), (*goal)->isTimeBudget(),
                              *context, allModes(record.plan.deviceKind), observed);
}

const QStringList &SweepSetup::builtinWorkloads()
{
    return builtinWorkloadBases();
}

QVector<PowerMode> SweepSetup::allModes(const QString &deviceKind)
{
    Expected<DeviceSpec> spec = DeviceSpec::lookup(deviceKind);
    if (!spec)
        return {};
    const ModeSpace space(*spec);
    QVector<PowerMode> modes;
    modes.reserve(int(space.size()));
    for (qint64 i = 0; i < space.size(); ++i)
        modes.append(space.mode(i));
    return modes;
}

Expected<qint64> SweepSetup::create(Store &store, SweepPlan plan)
{
    Expected<DeviceSpec> spec = DeviceSpec::lookup(plan.deviceKind);
    if (!spec)
        return Expected<qint64>::badInput(InputField::DeviceKind, spec.error());
    Expected<QVector<PowerMode>> modes = SweepPlan::selectModes(*spec, plan.modeSet, plan.seed);
    if (!modes)
        return passOn<Expected<qint64>>(modes);
    plan.modes = *modes;
    if (plan.modeSet.startsWith(QLatin1String("search:"))) {
        // The first mode the search asks for, with nothing measured yet.
        SweepRecord none;
        none.plan = plan;
        const Expected<SearchStep> first = searchStep(store, none, {});
        if (!first)
            return Expected<qint64>::badInput(InputField::Modes, first.error());
        if (first->next)
            plan.modes = {*first->next};
    }
    if (const Expected<std::optional<double>> cap = CapLadder::capOf(plan.modeSet);
        cap && cap->has_value()) {
        // The ladder's first rung: the largest batch at the lowest GPU clock.
        const CapLadder ladder(*spec, plan.batchSizes, **cap);
        const std::optional<CapLadder::Step> first =
            ladder.next([](const PowerMode &, int) { return std::nullopt; });
        if (!first)
            return Expected<qint64>::badInput(InputField::BatchSizes,
                                              QStringLiteral("cap:WATTS needs batch sizes"));
        return SweepStore(store).create(plan, {{first->mode, first->batch}});
    }
    SweepPlan::orderHighToLow(plan.modes);
    return SweepStore(store).create(plan);
}

void SweepSetup::configure(SweepRunner &runner, Store &store, const SweepRecord &record)
{
    if (auto extender = adaptiveExtender(store, record))
        runner.setPlanExtender(extender);
    else if (auto search = searchExtender(store, record))
        runner.setPlanExtender(search);
    else if (auto cap = capExtender(store, record))
        runner.setPlanExtender(cap);
    if (auto predicted = predictedProfileSeconds(store, record)) {
        runner.setPredictedSeconds(
            [predicted](const PowerMode &mode) { return predicted->value(mode, 0.0); });
    }
}

}  // namespace ptwb
