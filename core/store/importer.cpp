#include "store/importer.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

namespace ptwb {

QString ImportOutcome::describe() const
{
    if (alreadyImported) {
        return QStringLiteral("%1 was already imported for workload '%2' on %3 (import #%4 of "
                              "%5 rows, %6); nothing changed")
            .arg(record.fileName, workload, device)
            .arg(record.id)
            .arg(record.rows)
            .arg(record.importedAt);
    }
    const QString where =
        device == deviceKind ? device : QStringLiteral("%1 (%2)").arg(device, deviceKind);
    QString text = QStringLiteral("imported %1 rows (%2 distinct modes) of workload '%3' on %4 "
                                  "from %5 in %6 s")
                       .arg(rows)
                       .arg(distinctModes)
                       .arg(workload, where, record.fileName)
                       .arg(seconds, 0, 'f', 3);
    if (repeatedModes > 0) {
        text += QStringLiteral("; %1 modes appear on more than one line: every line is kept as a "
                               "repeated measurement of its mode, and analyses use the median "
                               "per mode")
                    .arg(repeatedModes);
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
    QElapsedTimer timer;
    timer.start();
    if (request.workload.trimmed().isEmpty())
        return Result::failure(QStringLiteral("the workload name is empty"), ErrorKind::BadInput);
    const Expected<QString> kind = resolveKind(m_store, request.device, request.deviceKind);
    if (!kind)
        return passOn<Result>(kind);
    const Expected<DeviceSpec> spec = DeviceSpec::builtin(*kind);
    if (!spec)
        return Result::failure(spec.error());

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
    outcome.deviceKind = *kind;
    outcome.workload = request.workload;
    if (const std::optional<ImportRecord> previous =
            m_store.findImport(request.device, request.workload, sha256)) {
        outcome.record = *previous;
        outcome.alreadyImported = true;
        outcome.rows = previous->rows;
        outcome.seconds = timer.elapsed() / 1000.0;
        return outcome;
    }

    const Expected<MeasurementCsv::Parsed> parsed =
        MeasurementCsv::parse(data, fileName, ModeSpace(*spec));
    if (!parsed)
        return passOn<Result>(parsed);

    Expected<ImportRecord> record = m_store.addImport(request.device, *kind, request.workload,
                                                      fileName, sha256, parsed->rows, progress);
    if (!record)
        return Result::failure(QStringLiteral("%1: %2").arg(m_store.path(), record.error()));
    outcome.record = *record;
    outcome.rows = parsed->rows.size();
    outcome.distinctModes = parsed->distinctModes;
    outcome.repeatedModes = parsed->repeatedModes;
    outcome.seconds = timer.nsecsElapsed() / 1e9;
    return outcome;
}

}  // namespace ptwb
