#pragma once

#include "predict/modelfit.h"
#include "predict/powermodel.h"
#include "store/measurement.h"
#include "store/modelrecord.h"
#include "util/expected.h"

#include <optional>

namespace ptwb {
class Store;
}

// Training and transfer end to end, for `ptwb train`/`transfer`, the Models view and the first
// run's starter data alike: load the measurements, find the reference, train, keep the in-sample
// metrics, store. Blocking (libtorch, SQLite): the window calls these on a worker. Each opens its
// own store connection from the path it is given.
namespace ptwb::workflows {

struct TrainRequest
{
    QString databasePath;
    QString workload;
    QString device;  // the store's device name; empty when the workload has one device
    QString method = QStringLiteral("reference");  // or "nn"
    QString configName = QStringLiteral("default");  // or "baseline" (docs/prediction.md)
    std::optional<predict::RegressorConfig> config;  // instead of configName (tests: small ones)
    quint64 seed = 1;
};

struct TransferRequest
{
    QString databasePath;
    QString referenceWorkload;  // its newest reference model (see findReference) ...
    qint64 referenceModelId = 0;  // ... or this model
    QString workload;  // the target, with a few profiled modes
    QString device;  // the target's device name; empty when it has one device
    // A reference of another device kind may be adapted (AGX Orin -> Orin Nano).
    bool allowDeviceTransfer = false;
    quint64 seed = 1;
};

// The newest reference model of `referenceWorkload` for a target measured on `targetKind`: one of
// the same kind first; one of another kind only with `allowDeviceTransfer`, else a BadInput error
// (InputField::DeviceTransfer) that says which kinds they are.
Expected<ModelRecord> findReference(Store &store, const QString &referenceWorkload,
                                    const QString &targetKind, bool allowDeviceTransfer);

// Trains a model on every measured mode of the workload and stores it. The stored record comes
// back with its id and metrics (modes, in-sample MAPE, seconds). Cancelled (through
// callbacks.cancelled): a failure saying so, and nothing stored.
Expected<ModelRecord> train(const TrainRequest &request, const TrainingCallbacks &callbacks = {});
// PowerTrain: adapts the reference model to the target's profiled modes and stores the result.
Expected<ModelRecord> transfer(const TransferRequest &request,
                               const TrainingCallbacks &callbacks = {});

// Every workload of the store with its device and number of measured modes (the views' lists).
Expected<QVector<WorkloadSummary>> storedWorkloads(const QString &databasePath);

// What the store holds for the Models view and `ptwb models`: workloads and models (without
// weights), newest model first.
struct ModelOverview
{
    QVector<WorkloadSummary> workloads;
    QVector<ModelRecord> models;
};
Expected<ModelOverview> modelOverview(const QString &databasePath);

// A stored model's predictions on every measured mode of its workload.
struct StoredFit
{
    ModelRecord record;
    ModelFit fit;
};
Expected<StoredFit> storedFit(const QString &databasePath, qint64 modelId);

}  // namespace ptwb::workflows
