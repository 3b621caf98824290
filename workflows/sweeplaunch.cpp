#include "sweeplaunch.h"

#include "store/batchview.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweeprunner.h"
#include "sweepsetup.h"
#include "workloads.h"

#include <QJsonDocument>

namespace ptwb::workflows {

namespace {

constexpr int kMaxMinibatches = 100000;
constexpr int kMaxRepeats = 100;

// The store's name for what is measured on `name` under the spec `kind`. A device keeps its name
// as long as its tables do; when they changed (a JetPack upgrade turned a Nano into a Super),
// what is measured under the new tables goes to "NAME [KIND]", so that each spec keeps its own
// measurements and neither is mixed into the other's mode space (issue 22).
QString storeNameUnderSpec(Store &store, const QString &name, const QString &kind)
{
    const std::optional<QString> stored = store.deviceKind(name);
    if (!stored || *stored == kind)
        return name;
    return QStringLiteral("%1 [%2]").arg(name, kind);
}

// What the device runs, and (for a saved definition) its minibatches per mode.
struct RunChoice
{
    WorkloadSpec spec;
    std::optional<int> minibatches;
};

Expected<RunChoice> workloadToRun(Store &store, const SweepRequest &request,
                                  const QString &deviceKind)
{
    if (request.run) {
        WorkloadSpec spec = *request.run;
        spec.inference = spec.inference || request.inference;
        return RunChoice {spec, std::nullopt};
    }
    const Expected<std::optional<WorkloadDefinition>> definition =
        findWorkload(store, request.workload);
    if (!definition)
        return passOn<Expected<RunChoice>>(definition);
    if (definition->has_value()) {
        const WorkloadDefinition &saved = **definition;
        if (!saved.deviceKind.isEmpty() && saved.deviceKind != deviceKind) {
            return Expected<RunChoice>::badInput(
                InputField::Workload,
                QStringLiteral("workload '%1' is defined for %2 devices, and this one is a %3")
                    .arg(saved.name, saved.deviceKind, deviceKind));
        }
        WorkloadSpec spec = WorkloadSpec::fromDefinition(saved);
        spec.inference = request.inference;
        return RunChoice {spec, saved.minibatchesPerMode()};
    }
    const QStringList &builtins = SweepSetup::builtinWorkloads();
    const QString builtin =
        request.inference ? builtinOfInference(request.workload) : request.workload;
    if (!builtins.contains(builtin)) {
        return Expected<RunChoice>::badInput(
            InputField::Run,
            QStringLiteral("workload '%1' is not built in (%2); say what the device runs for it")
                .arg(request.workload, builtins.join(QStringLiteral(", "))));
    }
    WorkloadSpec spec;
    spec.builtin = builtin;
    spec.inference = request.inference;
    return RunChoice {spec, std::nullopt};
}

// Adaptive and search plans choose modes from training measurements at one batch size.
Status checkBatchSizes(const SweepRequest &request)
{
    if (request.batchSizes.isEmpty()) {
        if (request.modeSet.trimmed().startsWith(QLatin1String("cap:")))
            return Status::badInput(InputField::BatchSizes,
                                    QStringLiteral("cap:WATTS finds the fastest GPU clock within "
                                                   "the cap for each batch size: list them "
                                                   "(e.g. 8,16,32,64)"));
        return {};
    }
    for (const char *prefix : {"als:", "search:"}) {
        if (request.modeSet.trimmed().startsWith(QLatin1String(prefix))) {
            return Status::badInput(InputField::BatchSizes,
                                    QStringLiteral("%1 plans choose modes at one batch size; "
                                                   "sweep several batch sizes with all, "
                                                   "random:N or grid:SPEC")
                                        .arg(QLatin1String(prefix) + QStringLiteral("...")));
        }
    }
    for (int size : request.batchSizes) {
        if (size < 1 || size > SweepPlan::kMaxBatchSize)
            return Status::badInput(InputField::BatchSizes,
                                    QStringLiteral("%1: expected a minibatch size of 1 to %2")
                                        .arg(size)
                                        .arg(SweepPlan::kMaxBatchSize));
    }
    return {};
}

// A workload holds one kind of measurement (Store::checkOneKind): refuse a sweep of the other
// kind before its plan is stored, not after an hour of profiling.
Status checkKind(Store &store, const QString &device, const QString &workload, bool inference)
{
    const Expected<QVector<Measurement>> rows = store.measurements(device, workload);
    if (!rows)
        return passOn<Status>(rows);
    if (rows->isEmpty() || (rows->front().inferenceBatch > 0) == inference)
        return {};
    const QString kinds[] = {QStringLiteral("training"), QStringLiteral("inference")};
    return Status::badInput(InputField::Workload,
                            QStringLiteral("workload '%1' on %2 holds %3 measurements; sweep its "
                                           "%4 under another workload name (a workload holds one "
                                           "kind only)")
                                .arg(workload, device, kinds[!inference], kinds[inference]));
}

QStringList addresses(const QVector<DeviceEndpoint> &devices)
{
    QStringList out;
    for (const DeviceEndpoint &device : devices)
        out.append(device.address);
    return out;
}

}  // namespace

QString inferenceWorkloadName(const QString &builtin)
{
    return builtin + QLatin1String(kInferenceSuffix);
}

QString builtinOfInference(const QString &workload)
{
    return workload.endsWith(QLatin1String(kInferenceSuffix))
        ? workload.chopped(int(qstrlen(kInferenceSuffix)))
        : workload;
}

Expected<qint64> planSweep(Store &store, const SweepRequest &asked,
                           const QVector<DeviceEndpoint> &devices)
{
    using Result = Expected<qint64>;
    // "resnet18@32" (a BatchView) is workload resnet18 profiled at batch 32
    SweepRequest request = asked;
    if (const std::optional<BatchView> view = BatchView::of(asked.workload)) {
        if (!asked.batchSizes.isEmpty() && asked.batchSizes != QVector<int> {view->batch}) {
            return Result::badInput(InputField::BatchSizes,
                                    QStringLiteral("'%1' is batch %2 of '%3'; leave out the "
                                                   "batch sizes or sweep '%3'")
                                        .arg(asked.workload)
                                        .arg(view->batch)
                                        .arg(view->workload));
        }
        request.workload = view->workload;
        request.batchSizes = {view->batch};
    }
    if (devices.isEmpty())
        return Result::badInput(InputField::Target, QStringLiteral("no device to sweep on"));
    if (request.workload.trimmed().isEmpty())
        return Result::badInput(InputField::Workload, QStringLiteral("no workload named"));
    const DeviceEndpoint &first = devices.first();
    const QString named = request.deviceName.isEmpty() ? first.storeName : request.deviceName;
    if (named.isEmpty() || first.kind.isEmpty()) {
        return Result::badInput(
            InputField::Target,
            QStringLiteral("the kind of device %1 is not known yet").arg(first.name));
    }
    const QString device = storeNameUnderSpec(store, named, first.kind);
    SweepStore sweeps(store);
    if (request.resume) {
        const Expected<qint64> id = request.resumeSweepId > 0
            ? Expected<qint64>(request.resumeSweepId)
            : sweeps.latest(device, request.workload);
        if (!id)
            return id;
        const Expected<SweepRecord> record = sweeps.load(*id);
        if (!record)
            return passOn<Result>(record);
        if (record->plan.deviceKind != first.kind) {
            return Result::badInput(InputField::Target,
                                    QStringLiteral("sweep %1 is planned for a %2, not a %3")
                                        .arg(*id)
                                        .arg(record->plan.deviceKind, first.kind));
        }
        return id;
    }
    if (request.modeSet.trimmed().isEmpty())
        return Result::badInput(InputField::Modes, QStringLiteral("no modes chosen"));
    if (request.minibatches < 2 || request.minibatches > kMaxMinibatches) {
        return Result::badInput(InputField::Minibatches,
                                QStringLiteral("expected 2..%1").arg(kMaxMinibatches));
    }
    if (request.repeats < 1 || request.repeats > kMaxRepeats)
        return Result::badInput(InputField::Repeats,
                                QStringLiteral("expected 1..%1").arg(kMaxRepeats));
    if (request.stopAfterFailures < 0)
        return Result::badInput(InputField::None,
                                QStringLiteral("stop after failures: expected 0 (never) or more, "
                                               "got %1")
                                    .arg(request.stopAfterFailures));
    const Expected<RunChoice> choice = workloadToRun(store, request, first.kind);
    if (!choice)
        return passOn<Result>(choice);
    const WorkloadSpec *run = &choice->spec;
    if (Status ok = checkBatchSizes(request); !ok)
        return passOn<Result>(ok);
    if (Status ok = checkKind(store, device, request.workload, run->inference); !ok)
        return passOn<Result>(ok);

    SweepPlan plan;
    plan.device = device;
    plan.deviceKind = first.kind;
    plan.workload = request.workload;
    plan.target = addresses(devices).join(QLatin1Char(','));
    plan.modeSet = request.modeSet.trimmed();
    plan.run = QString::fromUtf8(QJsonDocument(run->toJson()).toJson(QJsonDocument::Compact));
    plan.minibatches = choice->minibatches.value_or(request.minibatches);
    plan.repeats = request.repeats;
    plan.seed = request.seed;
    plan.batchSizes = request.batchSizes;
    return SweepSetup::create(store, plan);
}

Expected<std::unique_ptr<SweepRunner>> sweepRunner(Store &store, qint64 sweepId,
                                                   const QVector<DeviceEndpoint> &devices,
                                                   QObject *parent, int stopAfterFailures)
{
    using Result = Expected<std::unique_ptr<SweepRunner>>;
    const Expected<SweepRecord> record = SweepStore(store).load(sweepId);
    if (!record)
        return passOn<Result>(record);
    QVector<SweepDevice> reach;
    for (const DeviceEndpoint &device : devices)
        reach.append(SweepDevice {device.address, device.connect});
    SweepRunner::Options options;
    options.stopAfterFailures = std::max(0, stopAfterFailures);
    auto runner = std::make_unique<SweepRunner>(store, sweepId, reach, options, parent);
    SweepSetup::configure(*runner, store, *record);
    return Result(std::move(runner));
}

}  // namespace ptwb::workflows
