#include "store/importer.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <algorithm>

namespace ptwb {

qint64 ImportOutcome::rejectedFolders() const
{
    return std::count_if(folders.cbegin(), folders.cend(),
                         [](const RunFolderResult &folder) { return !folder.ok(); });
}

qint64 ImportOutcome::alreadyImportedFolders() const
{
    return std::count_if(folders.cbegin(), folders.cend(),
                         [](const RunFolderResult &folder) { return folder.alreadyImported; });
}

namespace {

QString describeFolders(const ImportOutcome &outcome, const QString &where)
{
    QString text =
        QStringLiteral("%1 %2 of %3 run folders (%4 distinct modes) of workload "
                       "'%5' on %6 from %7 in %8 s")
            .arg(outcome.dryRun ? QStringLiteral("would import") : QStringLiteral("imported"))
            .arg(outcome.rows)
            .arg(outcome.folders.size())
            .arg(outcome.distinctModes)
            .arg(outcome.workload, where, outcome.record.fileName)
            .arg(outcome.seconds, 0, 'f', 3);
    if (const qint64 again = outcome.alreadyImportedFolders(); again > 0)
        text += QStringLiteral("; %1 already imported, left as they were").arg(again);
    if (const qint64 rejected = outcome.rejectedFolders(); rejected > 0)
        text += QStringLiteral("; %1 not imported:").arg(rejected);
    for (const RunFolderResult &folder : outcome.folders) {
        if (!folder.ok()) {
            text += QStringLiteral("\n  ") + folder.error;
        } else if (outcome.dryRun && !folder.alreadyImported) {
            const ReducedRun &run = folder.reduction;
            text += QStringLiteral("\n  %1: %2 ms, %3 W (median of %4 minibatches and %5 power "
                                   "samples after power settled at %6 s)")
                        .arg(folder.folder)
                        .arg(run.timeMs, 0, 'f', 1)
                        .arg(run.powerW, 0, 'f', 2)
                        .arg(run.minibatches)
                        .arg(run.powerSamples)
                        .arg(run.settledAtS, 0, 'f', 1);
        }
    }
    return text;
}

// A store that could not take the rows names its file; rows it refuses (bad input, such as a
// training file for an inference workload) keep their kind and field for the caller.
template<typename To, typename From>
To storeFailure(const From &failed, const QString &storePath)
{
    if (failed.errorKind() == ErrorKind::BadInput)
        return passOn<To>(failed);
    return passOn<To>(failed, storePath);
}

}  // namespace

QString ImportOutcome::describe() const
{
    const QString where =
        device == deviceKind ? device : QStringLiteral("%1 (%2)").arg(device, deviceKind);
    if (rawRuns)
        return describeFolders(*this, where);
    if (alreadyImported) {
        return QStringLiteral("%1 was already imported for workload '%2' on %3 (import #%4 of "
                              "%5 rows, %6); nothing changed")
            .arg(record.fileName, workload, device)
            .arg(record.id)
            .arg(record.rows)
            .arg(record.importedAt);
    }
    QStringList batches;
    for (int batch : inferenceBatches)
        batches.append(QString::number(batch));
    const QString modes = batches.isEmpty()
        ? QStringLiteral("%1 distinct modes").arg(distinctModes)
        : QStringLiteral("inference: %1 distinct modes at minibatch sizes %2")
              .arg(distinctModes)
              .arg(batches.join(QStringLiteral(", ")));
    QString text = QStringLiteral("%1 %2 rows (%3) of workload '%4' on %5 from %6 in %7 s")
                       .arg(dryRun ? QStringLiteral("would import") : QStringLiteral("imported"))
                       .arg(rows)
                       .arg(modes, workload, where, record.fileName)
                       .arg(seconds, 0, 'f', 3);
    if (repeatedModes > 0) {
        text +=
            QStringLiteral("; %1 modes appear on more than one line%2: every line is kept "
                           "as a repeated measurement of its mode, and analyses use the "
                           "median per mode")
                .arg(repeatedModes)
                .arg(batches.isEmpty() ? QString() : QStringLiteral(" at the same minibatch size"));
    }
    return text;
}

Expected<QString> Importer::resolveKind(Store &store, const QString &device,
                                        const QString &explicitKind)
{
    const QStringList builtins = DeviceSpec::builtinIds();
    if (const std::optional<QString> stored = store.deviceKind(device)) {
        if (!explicitKind.isEmpty() && explicitKind != *stored) {
            return Expected<QString>::failure(
                QStringLiteral("device '%1' is of kind %2 in this store, not %3")
                    .arg(device, *stored, explicitKind),
                ErrorKind::BadInput);
        }
        return *stored;
    }
    const QString kind = explicitKind.isEmpty() ? device : explicitKind;
    if (!builtins.contains(kind)) {
        return Expected<QString>::failure(
            QStringLiteral("unknown device '%1'; expected a device kind (%2) or a device already "
                           "in the store")
                .arg(kind, builtins.join(QStringLiteral(", "))),
            ErrorKind::BadInput);
    }
    return kind;
}

Expected<ImportOutcome> Importer::run(const ImportRequest &request, const Store::Progress &progress)
{
    using Result = Expected<ImportOutcome>;
    if (request.workload.trimmed().isEmpty())
        return Result::badInput(InputField::Workload, QStringLiteral("the workload name is empty"));
    if (Status ok = Store::checkWorkloadName(request.workload); !ok)
        return passOn<Result>(ok);
    const Expected<QString> kind = resolveKind(m_store, request.device, request.deviceKind);
    if (!kind)
        return passOn<Result>(kind);
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(*kind);
    if (!spec)
        return Result::failure(spec.error());
    return QFileInfo(request.filePath).isDir() ? runFolders(request, *spec, progress)
                                               : runCsv(request, *spec, progress);
}

Expected<ImportOutcome> Importer::runCsv(const ImportRequest &request, const DeviceSpec &spec,
                                         const Store::Progress &progress)
{
    using Result = Expected<ImportOutcome>;
    QElapsedTimer timer;
    timer.start();
    QFile file(request.filePath);
    if (!file.open(QIODevice::ReadOnly)) {
        return Result::failure(
            QStringLiteral("%1: cannot read: %2").arg(request.filePath, file.errorString()),
            ErrorKind::BadInput);
    }
    const QByteArray data = file.readAll();
    const QString fileName = QFileInfo(request.filePath).fileName();
    const QString sha256 =
        QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());

    ImportOutcome outcome;
    outcome.device = request.device;
    outcome.deviceKind = spec.id();
    outcome.workload = request.workload;
    outcome.dryRun = request.dryRun;
    if (const std::optional<ImportRecord> previous =
            m_store.findImport(request.device, request.workload, sha256)) {
        outcome.record = *previous;
        outcome.alreadyImported = true;
        outcome.rows = previous->rows;
        outcome.seconds = timer.elapsed() / 1000.0;
        return outcome;
    }

    const Expected<MeasurementCsv::Parsed> parsed =
        MeasurementCsv::parse(data, fileName, ModeSpace(spec));
    if (!parsed)
        return passOn<Result>(parsed);
    outcome.rows = parsed->rows.size();
    outcome.distinctModes = parsed->distinctModes;
    outcome.repeatedModes = parsed->repeatedModes;
    outcome.inferenceBatches = parsed->inferenceBatches;
    if (request.dryRun) {
        outcome.record.fileName = fileName;
        outcome.seconds = timer.nsecsElapsed() / 1e9;
        return outcome;
    }

    Expected<ImportRecord> record = m_store.addImport(request.device, spec.id(), request.workload,
                                                      fileName, sha256, parsed->rows, progress);
    if (!record)
        return storeFailure<Result>(record, m_store.path());
    outcome.record = *record;
    outcome.seconds = timer.nsecsElapsed() / 1e9;
    return outcome;
}

Expected<ImportOutcome> Importer::runFolders(const ImportRequest &request, const DeviceSpec &spec,
                                             const Store::Progress &progress)
{
    using Result = Expected<ImportOutcome>;
    QElapsedTimer timer;
    timer.start();
    const Expected<QStringList> paths = RawRunFolder::find(request.filePath);
    if (!paths)
        return passOn<Result>(paths);

    ImportOutcome outcome;
    outcome.device = request.device;
    outcome.deviceKind = spec.id();
    outcome.workload = request.workload;
    outcome.dryRun = request.dryRun;
    outcome.rawRuns = true;
    outcome.record.fileName = QFileInfo(request.filePath).fileName();

    const ModeSpace space(spec);
    const RawRunFolder reader(space, {}, spec.socFamily());
    QVector<Store::ImportSource> sources;
    QSet<PowerMode> modes;
    QSet<QString> seen;  // the same logs twice in one tree are imported once
    for (const QString &path : *paths) {
        RunFolderResult folder = reader.read(path);
        if (folder.ok()) {
            if (seen.contains(folder.sha256) ||
                m_store.findImport(request.device, request.workload, folder.sha256)) {
                folder.alreadyImported = true;
            } else {
                seen.insert(folder.sha256);
                modes.insert(folder.measurement->mode);
                sources.append({folder.folder, folder.sha256, {*folder.measurement}});
            }
        }
        outcome.folders.append(std::move(folder));
    }
    outcome.rows = sources.size();
    outcome.distinctModes = modes.size();
    outcome.repeatedModes = 0;

    if (sources.isEmpty()) {
        if (outcome.rejectedFolders() == outcome.folders.size()) {
            QStringList errors;
            for (const RunFolderResult &folder : std::as_const(outcome.folders))
                errors.append(folder.error);
            return Result::failure(
                QStringLiteral("%1: none of the %2 run folders can be imported:\n%3")
                    .arg(request.filePath)
                    .arg(outcome.folders.size())
                    .arg(errors.join(QLatin1Char('\n'))),
                ErrorKind::BadInput);
        }
        outcome.alreadyImported = outcome.rejectedFolders() == 0;
    } else if (!request.dryRun) {
        Expected<QVector<ImportRecord>> records =
            m_store.addImports(request.device, spec.id(), request.workload, sources, progress);
        if (!records)
            return storeFailure<Result>(records, m_store.path());
        outcome.record.id = records->front().id;
        outcome.record.importedAt = records->front().importedAt;
    }
    outcome.record.rows = outcome.rows;
    outcome.seconds = timer.nsecsElapsed() / 1e9;
    return outcome;
}

}  // namespace ptwb
