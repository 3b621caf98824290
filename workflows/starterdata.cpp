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

Expected<qint64> StarterData::importCorpora(const QString &dbPath, const QString &deviceKind)
{
    using Result = Expected<qint64>;
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath);
    if (!store)
        return passOn<Result>(store);
    const Expected<QVector<WorkloadSummary>> summaries = (*store)->summaries();
    if (!summaries)
        return Result::failure(summaries.error());
    for (const WorkloadSummary &s : *summaries) {
        if (s.deviceKind == deviceKind)
            return 0;
    }
    store->reset();  // importCorpus opens its own connection
    const Expected<qint64> reference =
        importCorpus(dbPath, deviceKind, QString::fromLatin1(kReferenceWorkload), 0);
    if (!reference)
        return reference;
    const Expected<qint64> added =
        importCorpus(dbPath, deviceKind, QString::fromLatin1(kNewWorkload), kNewWorkloadModes);
    if (!added)
        return added;
    return *reference;
}

Expected<qint64> StarterData::importCorpus(const QString &dbPath, const QString &deviceKind,
                                           const QString &workload, int sample)
{
    using Result = Expected<qint64>;
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath);
    if (!store)
        return passOn<Result>(store);
    QTemporaryDir scratch;
    const QString csv = scratch.filePath(workload + QStringLiteral(".csv"));
    if (const Status generated = SimulatedCorpus::generate(deviceKind, workload, csv, sample);
        !generated)
        return passOn<Result>(generated);
    Importer importer(**store);
    const Expected<ImportOutcome> imported =
        importer.run({csv, deviceName(deviceKind), deviceKind, workload});
    if (!imported)
        return passOn<Result>(imported);
    return imported->distinctModes;
}

Status StarterData::prepareWithModels(const QString &dbPath, const QString &deviceKind)
{
    const Expected<qint64> imported = importCorpora(dbPath, deviceKind);
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
