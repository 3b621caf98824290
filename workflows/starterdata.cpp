#include "starterdata.h"

#include "predict/modelfit.h"
#include "simulatedcorpus.h"
#include "store/importer.h"

#include <QElapsedTimer>
#include <QTemporaryDir>

namespace ptwb {

QString StarterData::deviceName(const QString &deviceKind)
{
    return QStringLiteral("simulated-") + deviceKind;
}

Expected<bool> StarterData::importCorpora(const QString &dbPath, const QString &deviceKind)
{
    using Result = Expected<bool>;
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath);
    if (!store)
        return Result::failure(store.error(), store.errorKind());
    const Expected<QVector<WorkloadSummary>> summaries = (*store)->summaries();
    if (!summaries)
        return Result::failure(summaries.error());
    for (const WorkloadSummary &s : *summaries) {
        if (s.deviceKind == deviceKind)
            return false;
    }
    store->reset();  // importCorpus opens its own connection
    const Status reference =
        importCorpus(dbPath, deviceKind, QString::fromLatin1(kReferenceWorkload), 0);
    if (!reference)
        return Result::failure(reference.error(), reference.errorKind());
    const Status added =
        importCorpus(dbPath, deviceKind, QString::fromLatin1(kNewWorkload), kNewWorkloadModes);
    if (!added)
        return Result::failure(added.error(), added.errorKind());
    return true;
}

Status StarterData::importCorpus(const QString &dbPath, const QString &deviceKind,
                                 const QString &workload, int sample)
{
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath);
    if (!store)
        return Status::failure(store.error(), store.errorKind());
    QTemporaryDir scratch;
    const QString csv = scratch.filePath(workload + QStringLiteral(".csv"));
    if (const Status generated = SimulatedCorpus::generate(deviceKind, workload, csv, sample);
        !generated)
        return generated;
    Importer importer(**store);
    const Expected<ImportOutcome> imported =
        importer.run({csv, deviceName(deviceKind), deviceKind, workload});
    return imported ? Status() : Status::failure(imported.error(), imported.errorKind());
}

Status StarterData::prepareWithModels(const QString &dbPath, const QString &deviceKind)
{
    const Expected<bool> imported = importCorpora(dbPath, deviceKind);
    if (!imported)
        return Status::failure(imported.error(), imported.errorKind());
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath);
    if (!store)
        return Status::failure(store.error(), store.errorKind());
    const QString device = deviceName(deviceKind);
    const Expected<WorkloadData> reference =
        WorkloadData::load(**store, QString::fromLatin1(kReferenceWorkload), device);
    const Expected<WorkloadData> target =
        WorkloadData::load(**store, QString::fromLatin1(kNewWorkload), device);
    if (!reference || !target)
        return Status::failure(!reference ? reference.error() : target.error());
    QElapsedTimer clock;
    clock.start();
    Expected<PowerModel> model = PowerModel::train(
        device, deviceKind, QString::fromLatin1(kReferenceWorkload), reference->data,
        QStringLiteral("reference"), QStringLiteral("default"), 1);
    if (!model)
        return Status::failure(model.error(), model.errorKind());
    // The in-sample metrics and the training time, as `ptwb train` and `transfer` keep them.
    model->setMetrics(
        ModelFit::of(*model, reference->data).trainingMetrics(clock.nsecsElapsed() / 1e9));
    const Expected<qint64> id = (*store)->saveModel(model->toRecord());
    if (!id)
        return Status::failure(id.error());
    model->setId(*id);
    clock.restart();
    Expected<PowerModel> transferred = model->transfer(
        device, deviceKind, QString::fromLatin1(kNewWorkload), target->data, 1, false);
    if (!transferred)
        return Status::failure(transferred.error(), transferred.errorKind());
    transferred->setMetrics(
        ModelFit::of(*transferred, target->data).trainingMetrics(clock.nsecsElapsed() / 1e9));
    const Expected<qint64> saved = (*store)->saveModel(transferred->toRecord());
    return saved ? Status() : Status::failure(saved.error());
}

}  // namespace ptwb
