#pragma once

#include "predict/modelfit.h"
#include "store/measurement.h"
#include "store/modelrecord.h"

#include <atomic>
#include <memory>

namespace ptwb::ui::modeltasks {

// The Models view's blocking steps. Each opens its own store connection and may run libtorch:
// call them on a worker thread only. Errors come back as a message in `error`.

struct Lists
{
    QVector<WorkloadSummary> summaries;
    QVector<ModelRecord> models;  // without weights
    QString error;
};
Lists loadLists(const QString &path);

// A stored model's predictions on every measured mode of its workload.
struct Fit
{
    qint64 id = 0;
    ModelRecord record;
    ModelFit fit;
    QString error;
};
Fit loadFit(const QString &path, qint64 id);

Expected<WorkloadData> loadWorkload(const QString &path, const QString &workload,
                                    const QString &device);

struct TransferInputs
{
    std::shared_ptr<const PowerModel> reference;
    WorkloadData target;
    QString error;
};
TransferInputs loadTransferInputs(const QString &path, qint64 referenceId, const QString &workload,
                                  const QString &device);

// Keeps the in-sample metrics with the model (as `ptwb train` does) and stores it, unless
// `cancelled` was set meanwhile (then a failure that says so).
Expected<qint64> saveTrained(const QString &path, PowerModel &model, const TrainingData &data,
                             double seconds, const std::atomic<bool> &cancelled);

}  // namespace ptwb::ui::modeltasks
