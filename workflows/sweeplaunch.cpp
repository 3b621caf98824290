#include "sweeplaunch.h"

#include "store/sweepstore.h"
#include "sweeprunner.h"
#include "sweepsetup.h"

#include <QJsonDocument>

namespace ptwb::workflows {

namespace {

constexpr int kMaxMinibatches = 100000;
constexpr int kMaxRepeats = 100;

Expected<WorkloadSpec> workloadToRun(const SweepRequest &request)
{
    if (request.run)
        return *request.run;
    const QStringList &builtins = SweepSetup::builtinWorkloads();
    if (!builtins.contains(request.workload)) {
        return Expected<WorkloadSpec>::badInput(
            InputField::Run,
            QStringLiteral("workload '%1' is not built in (%2); say what the device runs for it")
                .arg(request.workload, builtins.join(QStringLiteral(", "))));
    }
    WorkloadSpec spec;
    spec.builtin = request.workload;
    return spec;
}

QStringList addresses(const QVector<DeviceEndpoint> &devices)
{
    QStringList out;
    for (const DeviceEndpoint &device : devices)
        out.append(device.address);
    return out;
}

}  // namespace

Expected<qint64> planSweep(Store &store, const SweepRequest &request,
                           const QVector<DeviceEndpoint> &devices)
{
    using Result = Expected<qint64>;
    if (devices.isEmpty())
        return Result::badInput(InputField::Target, QStringLiteral("no device to sweep on"));
    if (request.workload.trimmed().isEmpty())
        return Result::badInput(InputField::Workload, QStringLiteral("no workload named"));
    const DeviceEndpoint &first = devices.first();
    const QString device = request.deviceName.isEmpty() ? first.storeName : request.deviceName;
    if (device.isEmpty() || first.kind.isEmpty()) {
        return Result::badInput(
            InputField::Target,
            QStringLiteral("the kind of device %1 is not known yet").arg(first.name));
    }
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
    const Expected<WorkloadSpec> run = workloadToRun(request);
    if (!run)
        return passOn<Result>(run);

    SweepPlan plan;
    plan.device = device;
    plan.deviceKind = first.kind;
    plan.workload = request.workload;
    plan.target = addresses(devices).join(QLatin1Char(','));
    plan.modeSet = request.modeSet.trimmed();
    plan.run = QString::fromUtf8(QJsonDocument(run->toJson()).toJson(QJsonDocument::Compact));
    plan.minibatches = request.minibatches;
    plan.repeats = request.repeats;
    plan.seed = request.seed;
    return SweepSetup::create(store, plan);
}

Expected<std::unique_ptr<SweepRunner>>
sweepRunner(Store &store, qint64 sweepId, const QVector<DeviceEndpoint> &devices, QObject *parent)
{
    using Result = Expected<std::unique_ptr<SweepRunner>>;
    const Expected<SweepRecord> record = SweepStore(store).load(sweepId);
    if (!record)
        return passOn<Result>(record);
    QVector<SweepDevice> reach;
    for (const DeviceEndpoint &device : devices)
        reach.append(SweepDevice {device.address, device.connect});
    auto runner =
        std::make_unique<SweepRunner>(store, sweepId, reach, SweepRunner::Options(), parent);
    SweepSetup::configure(*runner, store, *record);
    return Result(std::move(runner));
}

}  // namespace ptwb::workflows
