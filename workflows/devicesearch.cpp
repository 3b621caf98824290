#include "devicesearch.h"

#include "store/store.h"
#include "store/sweepstore.h"
#include "sweepsetup.h"

namespace ptwb::workflows {

Expected<qint64> planSearch(Store &store, const SearchRequest &request,
                            const QVector<DeviceEndpoint> &devices)
{
    using Result = Expected<qint64>;
    SweepRequest sweep;
    sweep.workload = request.workload;
    sweep.minibatches = request.minibatches;
    sweep.run = request.run;
    sweep.deviceName = request.deviceName;
    sweep.resume = request.resume;
    if (!request.resume) {
        if (!BudgetSearch::strategies().contains(request.strategy))
            return Result::badInput(
                InputField::Strategies,
                QStringLiteral("'%1': a device search runs one of %2")
                    .arg(request.strategy, BudgetSearch::strategies().join(QStringLiteral(", "))));
        const bool power = request.powerBudgetW > 0;
        const bool time = request.timeBudgetMs > 0;
        if (power == time || request.powerBudgetW >= 1e4 || request.timeBudgetMs >= 1e7)
            return Result::badInput(InputField::Budgets,
                                    QStringLiteral("expected one budget: a power budget above 0 "
                                                   "W or a time budget above 0 ms"));
        SearchGoal goal {request.strategy, request.powerBudgetW, request.timeBudgetMs, 0};
        if (request.strategy == QLatin1String("pts")) {
            if (devices.isEmpty())
                return Result::badInput(InputField::Target, QStringLiteral("no device"));
            const Expected<qint64> reference =
                searchReference(store, request, devices.first().kind);
            if (!reference)
                return reference;
            goal.referenceModelId = *reference;
        }
        sweep.modeSet = goal.modeSet();
    }
    const Expected<qint64> planned = planSweep(store, sweep, devices);
    if (!planned || !request.resume)
        return planned;
    const Expected<SweepRecord> record = SweepStore(store).load(*planned);
    if (!record)
        return passOn<Result>(record);
    const Expected<std::optional<SearchGoal>> goal = SearchGoal::of(record->plan.modeSet);
    if (!goal || !*goal)
        return Result::badInput(InputField::Resume,
                                QStringLiteral("the newest sweep of '%1' (sweep %2, modes %3) is "
                                               "not a search")
                                    .arg(request.workload)
                                    .arg(*planned)
                                    .arg(record->plan.modeSet));
    return planned;
}

Expected<qint64> searchReference(Store &store, const SearchRequest &request, const QString &kind)
{
    using Result = Expected<qint64>;
    if (request.transferredModelId > 0) {
        const Expected<ModelRecord> model = store.model(request.transferredModelId);
        if (!model)
            return passOn<Result>(model);
        if (model->referenceModelId <= 0)
            return Result::badInput(InputField::Reference,
                                    QStringLiteral("model %1 of '%2' was not transferred from a "
                                                   "reference")
                                        .arg(model->id)
                                        .arg(model->workload));
        return model->referenceModelId;
    }
    if (request.referenceWorkload.isEmpty())
        return Result::badInput(InputField::Reference,
                                QStringLiteral("pts transfers a reference model: name the "
                                               "reference workload"));
    const Expected<ModelRecord> model =
        store.latestModel(kind, request.referenceWorkload, QStringLiteral("reference"));
    if (!model)
        return Result::badInput(InputField::Reference,
                                QStringLiteral("no reference model of '%1' on %2 (train one "
                                               "first): %3")
                                    .arg(request.referenceWorkload, kind, model.error()));
    return model->id;
}

Expected<SearchOutcome> searchOutcome(Store &store, qint64 sweepId)
{
    using Result = Expected<SearchOutcome>;
    const Expected<SweepRecord> record = SweepStore(store).load(sweepId);
    if (!record)
        return passOn<Result>(record);
    const Expected<QHash<PowerMode, Measurement>> measured =
        SweepSetup::sweepMeasurements(store, *record);
    if (!measured)
        return passOn<Result>(measured);
    const Expected<SearchStep> step = SweepSetup::searchStep(store, *record, *measured);
    if (!step)
        return passOn<Result>(step);
    if (step->next)
        return Result::failure(QStringLiteral("search %1 stopped before it found a mode (%2 "
                                              "profiled so far)")
                                   .arg(sweepId)
                                   .arg(step->profiled),
                               ErrorKind::Failed);
    SearchOutcome out;
    out.goal = **SearchGoal::of(record->plan.modeSet);
    out.mode = step->answer;
    out.fits = step->fits;
    out.profiled = step->profiled;
    if (const auto it = measured->constFind(out.mode); it != measured->cend())
        out.measured = *it;
    return out;
}

}  // namespace ptwb::workflows
