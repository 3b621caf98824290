#include "starterdata.h"

#include "modelworkflow.h"
#include "simulatedcorpus.h"
#include "store/importer.h"

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
        return passOn<Result>(store);
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
        return passOn<Result>(reference);
    const Status added =
        importCorpus(dbPath, deviceKind, QString::fromLatin1(kNewWorkload), kNewWorkloadModes);
    if (!added)
        return passOn<Result>(added);
    return true;
}

Status StarterData::importCorpus(const QString &dbPath, const QString &deviceKind,
                                 const QString &workload, int sample)
{
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath);
    if (!store)
        return passOn<Status>(store);
    QTemporaryDir scratch;
    const QString csv = scratch.filePath(workload + QStringLiteral(".csv"));
    if (const Status generated = SimulatedCorpus::generate(deviceKind, workload, csv, sample);
        !generated)
        return generated;
    Importer importer(**store);
    const Expected<ImportOutcome> imported =
        importer.run({csv, deviceName(deviceKind), deviceKind, workload});
    return imported ? Status() : passOn<Status>(imported);
}

Status StarterData::prepareWithModels(const QString &dbPath, const QString &deviceKind)
{
    const Expected<bool> imported = importCorpora(dbPath, deviceKind);
    if (!imported)
        return passOn<Status>(imported);
    // The reference model and its transfer, as the Models view and `ptwb train`/`transfer`
    // make them.
    workflows::TrainRequest train;
    train.databasePath = dbPath;
    train.workload = QString::fromLatin1(kReferenceWorkload);
    train.device = deviceName(deviceKind);
    const Expected<ModelRecord> reference = workflows::train(train);
    if (!reference)
        return passOn<Status>(reference);
    workflows::TransferRequest transfer;
    transfer.databasePath = dbPath;
    transfer.referenceModelId = reference->id;
    transfer.workload = QString::fromLatin1(kNewWorkload);
    transfer.device = train.device;
    const Expected<ModelRecord> transferred = workflows::transfer(transfer);
    return transferred ? Status() : passOn<Status>(transferred);
}

}  // namespace ptwb
