#include "modeltasks.h"

#include "store/store.h"

namespace ptwb::ui::modeltasks {

Lists loadLists(const QString &path)
{
    Lists lists;
    Expected<std::unique_ptr<Store>> store = Store::open(path);
    if (!store) {
        lists.error = store.error();
        return lists;
    }
    const auto summaries = (*store)->summaries();
    const auto models = (*store)->models();
    if (summaries && models) {
        lists.summaries = *summaries;
        lists.models = *models;
    } else {
        lists.error = summaries ? models.error() : summaries.error();
    }
    return lists;
}

Fit loadFit(const QString &path, qint64 id)
{
    Fit out;
    out.id = id;
    Expected<std::unique_ptr<Store>> store = Store::open(path);
    if (!store) {
        out.error = store.error();
        return out;
    }
    const Expected<ModelRecord> record = (*store)->model(id);
    if (!record) {
        out.error = record.error();
        return out;
    }
    const Expected<PowerModel> model = PowerModel::fromRecord(*record);
    const Expected<WorkloadData> data =
        WorkloadData::load(**store, record->workload, record->device);
    if (!model || !data) {
        out.error = model ? data.error() : model.error();
        return out;
    }
    out.record = model->record();
    out.fit = ModelFit::of(*model, data->data);
    return out;
}

Expected<WorkloadData> loadWorkload(const QString &path, const QString &workload,
                                    const QString &device)
{
    Expected<std::unique_ptr<Store>> store = Store::open(path);
    if (!store)
        return Expected<WorkloadData>::failure(store.error());
    return WorkloadData::load(**store, workload, device);
}

TransferInputs loadTransferInputs(const QString &path, qint64 referenceId, const QString &workload,
                                  const QString &device)
{
    TransferInputs out;
    Expected<std::unique_ptr<Store>> store = Store::open(path);
    if (!store) {
        out.error = store.error();
        return out;
    }
    const Expected<ModelRecord> record = (*store)->model(referenceId);
    if (!record) {
        out.error = record.error();
        return out;
    }
    Expected<PowerModel> model = PowerModel::fromRecord(*record);
    if (!model) {
        out.error = model.error();
        return out;
    }
    const Expected<WorkloadData> target = WorkloadData::load(**store, workload, device);
    if (!target) {
        out.error = target.error();
        return out;
    }
    out.reference = std::make_shared<const PowerModel>(std::move(model).value());
    out.target = *target;
    return out;
}

Expected<qint64> saveTrained(const QString &path, PowerModel &model, const TrainingData &data,
                             double seconds, const std::atomic<bool> &cancelled)
{
    model.setMetrics(ModelFit::of(model, data).trainingMetrics(seconds));
    if (cancelled.load())
        return Expected<qint64>::failure(QStringLiteral("cancelled"));
    Expected<std::unique_ptr<Store>> store = Store::open(path);
    if (!store)
        return Expected<qint64>::failure(store.error());
    return (*store)->saveModel(model.toRecord());
}

}  // namespace ptwb::ui::modeltasks
