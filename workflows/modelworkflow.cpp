#include "modelworkflow.h"

#include "modes/devicespec.h"
#include "store/store.h"

#include <QElapsedTimer>

namespace ptwb::workflows {

namespace {

const QString kReference = QStringLiteral("reference");

bool wasCancelled(const TrainingCallbacks &callbacks)
{
    return callbacks.cancelled && callbacks.cancelled();
}

Expected<ModelRecord> cancelled()
{
    return Expected<ModelRecord>::failure(QStringLiteral("cancelled; nothing was stored"));
}

QString kindName(const QString &kind)
{
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(kind);
    return spec ? QStringLiteral("%1 (%2)").arg(spec->name(), kind) : kind;
}

// Keeps the in-sample metrics and the training time with the model (what `ptwb models` and the
// Models view list) and stores it, unless the work was cancelled meanwhile.
Expected<ModelRecord> keep(Store &store, PowerModel &model, const TrainingData &data,
                           const QElapsedTimer &clock, const TrainingCallbacks &callbacks)
{
    model.setMetrics(ModelFit::of(model, data).trainingMetrics(clock.nsecsElapsed() / 1e9));
    if (wasCancelled(callbacks))
        return cancelled();
    const Expected<qint64> id = store.saveModel(model.toRecord());
    if (!id)
        return passOn<Expected<ModelRecord>>(id);
    model.setId(*id);
    return model.record();
}

// The store and the measurements of the workload a model is made for.
struct Loaded
{
    std::unique_ptr<Store> store;
    WorkloadData workload;
};

Expected<Loaded> openAndLoad(const QString &databasePath, const QString &workload,
                             const QString &device)
{
    Expected<std::unique_ptr<Store>> store = Store::open(databasePath);
    if (!store)
        return passOn<Expected<Loaded>>(store);
    Expected<WorkloadData> data = WorkloadData::load(**store, workload, device);
    if (!data)
        return passOn<Expected<Loaded>>(data);
    return Loaded {std::move(store).value(), std::move(data).value()};
}

}  // namespace

Expected<ModelRecord> findReference(Store &store, const QString &referenceWorkload,
                                    const QString &targetKind, bool allowDeviceTransfer)
{
    Expected<ModelRecord> sameKind = store.latestModel(targetKind, referenceWorkload, kReference);
    if (sameKind)
        return sameKind;
    const Expected<ModelRecord> anyKind =
        store.latestModel(QString(), referenceWorkload, kReference);
    if (!anyKind)
        return sameKind;  // "no reference model of workload W for KIND"
    if (allowDeviceTransfer)
        return anyKind;
    return Expected<ModelRecord>::badInput(
        InputField::DeviceTransfer,
        QStringLiteral("the reference model of '%1' was trained on %2, but the target was measured "
                       "on %3; allow a transfer across device kinds to adapt it")
            .arg(referenceWorkload, kindName(anyKind->deviceKind), kindName(targetKind)));
}

Expected<ModelRecord> train(const TrainRequest &request, const TrainingCallbacks &callbacks)
{
    Expected<Loaded> opened = openAndLoad(request.databasePath, request.workload, request.device);
    if (!opened)
        return passOn<Expected<ModelRecord>>(opened);
    Store &store = *opened->store;
    const WorkloadData &loaded = opened->workload;
    QElapsedTimer clock;
    clock.start();
    Expected<PowerModel> model = request.config
        ? PowerModel::train(loaded.device, loaded.kind, request.workload, loaded.data,
                            request.method, *request.config, request.seed, callbacks)
        : PowerModel::train(loaded.device, loaded.kind, request.workload, loaded.data,
                            request.method, request.configName, request.seed, callbacks);
    if (wasCancelled(callbacks))
        return cancelled();
    if (!model)
        return passOn<Expected<ModelRecord>>(model);
    return keep(store, *model, loaded.data, clock, callbacks);
}

Expected<ModelRecord> transfer(const TransferRequest &request, const TrainingCallbacks &callbacks)
{
    Expected<Loaded> opened = openAndLoad(request.databasePath, request.workload, request.device);
    if (!opened)
        return passOn<Expected<ModelRecord>>(opened);
    Store &store = *opened->store;
    const WorkloadData &loaded = opened->workload;

    Expected<ModelRecord> record = request.referenceModelId > 0
        ? store.model(request.referenceModelId)
        : findReference(store, request.referenceWorkload, loaded.kind, request.allowDeviceTransfer);
    if (!record && request.referenceModelId > 0)
        return Expected<ModelRecord>::failure(record.error(), ErrorKind::BadInput,
                                              InputField::Reference);
    if (!record)
        return record;
    const Expected<PowerModel> reference = PowerModel::fromRecord(*record);
    if (!reference)
        return passOn<Expected<ModelRecord>>(reference);

    QElapsedTimer clock;
    clock.start();
    Expected<PowerModel> model =
        reference->transfer(loaded.device, loaded.kind, request.workload, loaded.data, request.seed,
                            request.allowDeviceTransfer, callbacks);
    if (wasCancelled(callbacks))
        return cancelled();
    if (!model)
        return passOn<Expected<ModelRecord>>(model);
    return keep(store, *model, loaded.data, clock, callbacks);
}

Expected<QVector<WorkloadSummary>> storedWorkloads(const QString &databasePath)
{
    Expected<std::unique_ptr<Store>> store = Store::open(databasePath);
    if (!store)
        return passOn<Expected<QVector<WorkloadSummary>>>(store);
    return (*store)->summaries();
}

Expected<ModelOverview> modelOverview(const QString &databasePath)
{
    Expected<std::unique_ptr<Store>> store = Store::open(databasePath);
    if (!store)
        return passOn<Expected<ModelOverview>>(store);
    Expected<QVector<WorkloadSummary>> workloads = (*store)->summaries();
    if (!workloads)
        return passOn<Expected<ModelOverview>>(workloads);
    Expected<QVector<ModelRecord>> models = (*store)->models();
    if (!models)
        return passOn<Expected<ModelOverview>>(models);
    return ModelOverview {std::move(workloads).value(), std::move(models).value()};
}

Expected<StoredFit> storedFit(const QString &databasePath, qint64 modelId)
{
    Expected<std::unique_ptr<Store>> store = Store::open(databasePath);
    if (!store)
        return passOn<Expected<StoredFit>>(store);
    const Expected<ModelRecord> record = (*store)->model(modelId);
    if (!record)
        return passOn<Expected<StoredFit>>(record);
    const Expected<PowerModel> model = PowerModel::fromRecord(*record);
    if (!model)
        return passOn<Expected<StoredFit>>(model);
    const Expected<WorkloadData> data =
        WorkloadData::load(**store, record->workload, record->device);
    if (!data)
        return passOn<Expected<StoredFit>>(data);
    return StoredFit {model->record(), ModelFit::of(*model, data->data)};
}

}  // namespace ptwb::workflows
