#include "storecommands.h"

#include "modes/devicespec.h"
#include "store/batchview.h"
#include "store/importer.h"
#include "store/measurementcsv.h"
#include "store/store.h"

#include <QJsonArray>

#include <algorithm>

namespace ptwb::cli {

namespace {

QJsonArray intArray(const QVector<int> &values)
{
    QJsonArray out;
    for (int value : values)
        out.append(value);
    return out;
}

}  // namespace

void ImportCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addPositionalArgument(QStringLiteral("PATH"),
                                 QStringLiteral("A summary CSV with columns cores,cpu,gpu,mem,"
                                                "observed_time,observed_power (kHz for cpu, Hz "
                                                "for gpu and mem, ms, W), or with a bs column "
                                                "too: inference measurements, observed_time "
                                                "the ms of one minibatch of bs requests; or "
                                                "raw run folders "
                                                "pm_<cores>_<cpu kHz>_<gpu Hz>_<mem Hz>/ as the "
                                                "PowerTrain study's scripts write them (one, or "
                                                "a folder of them)."));
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device the file was measured on: a kind (%1) or a "
                                     "device already in the database.")
                          .arg(DeviceSpec::builtinIds().join(QStringLiteral(", "))),
                      QStringLiteral("DEVICE")});
    parser.addOption({QStringLiteral("kind"),
                      QStringLiteral("Kind of a new device given a name of its own with --device."),
                      QStringLiteral("KIND")});
    parser.addOption({QStringLiteral("workload"), QStringLiteral("Workload name, e.g. resnet18."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("progress"),
                      QStringLiteral("Print progress lines on stderr while storing.")});
    parser.addOption({QStringLiteral("dry-run"),
                      QStringLiteral("Read and check everything, list what would be imported, "
                                     "store nothing.")});
}

int ImportCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("device"), QStringLiteral("workload")}, output,
                        &exitCode)) {
        return exitCode;
    }
    if (parser.positionalArguments().size() != 1)
        return output.badUsage(QStringLiteral(
            "import takes exactly one PATH (a CSV file or a folder of run folders)"));

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);

    Store::Progress progress;
    if (parser.isSet(QStringLiteral("progress"))) {
        progress = [&output](qint64 done, qint64 total) {
            output.err() << QStringLiteral("stored %1 of %2 rows").arg(done).arg(total) << Qt::endl;
            return true;
        };
    }
    Importer importer(**store);
    const ImportRequest request {
        parser.positionalArguments().first(), parser.value(QStringLiteral("device")),
        parser.value(QStringLiteral("kind")), parser.value(QStringLiteral("workload")),
        parser.isSet(QStringLiteral("dry-run"))};
    const Expected<ImportOutcome> outcome = importer.run(request, progress);
    if (!outcome)
        return output.fail(outcome);

    if (output.json()) {
        QJsonArray folders;
        for (const RunFolderResult &folder : outcome->folders) {
            QJsonObject entry {{QStringLiteral("folder"), folder.folder},
                               {QStringLiteral("status"),
                                !folder.ok()                 ? QStringLiteral("rejected")
                                    : folder.alreadyImported ? QStringLiteral("already_imported")
                                    : outcome->dryRun        ? QStringLiteral("would_import")
                                                             : QStringLiteral("imported")}};
            if (folder.ok()) {
                const ReducedRun &run = folder.reduction;
                entry.insert(QStringLiteral("mode"), folder.measurement->mode.toCanonical());
                entry.insert(QStringLiteral("time_ms"), run.timeMs);
                entry.insert(QStringLiteral("time_iqr_ms"), run.timeSpreadMs);
                entry.insert(QStringLiteral("power_w"), run.powerW);
                entry.insert(QStringLiteral("power_iqr_w"), run.powerSpreadW);
                entry.insert(QStringLiteral("minibatches"), run.minibatches);
                entry.insert(QStringLiteral("power_samples"), run.powerSamples);
                entry.insert(QStringLiteral("settled_at_s"), run.settledAtS);
                entry.insert(QStringLiteral("machine"), folder.machine);
            } else {
                entry.insert(QStringLiteral("error"), folder.error);
            }
            folders.append(entry);
        }
        QJsonObject object {{QStringLiteral("file"), outcome->record.fileName},
                            {QStringLiteral("dry_run"), outcome->dryRun},
                            {QStringLiteral("folders"), folders},
                            {QStringLiteral("device"), outcome->device},
                            {QStringLiteral("kind"), outcome->deviceKind},
                            {QStringLiteral("workload"), outcome->workload},
                            {QStringLiteral("import_id"), outcome->record.id},
                            {QStringLiteral("already_imported"), outcome->alreadyImported},
                            {QStringLiteral("rows"), outcome->rows},
                            {QStringLiteral("distinct_modes"), outcome->distinctModes},
                            {QStringLiteral("repeated_modes"), outcome->repeatedModes},
                            {QStringLiteral("seconds"), outcome->seconds}};
        if (!outcome->inferenceBatches.isEmpty()) {
            object.insert(QStringLiteral("inference_batches"), intArray(outcome->inferenceBatches));
        }
        output.object(object);
    } else {
        output.line(outcome->describe());
    }
    // Some run folders were not imported: the good ones are stored, the exit code says not all.
    return outcome->rejectedFolders() > 0 ? kExitBadInput : kExitOk;
}

void ExportCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("workload"), QStringLiteral("Workload to export."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device, when the workload was measured on several."),
                      QStringLiteral("DEVICE")});
    parser.addOption({QStringLiteral("out"),
                      QStringLiteral("Output file, or - for standard output."),
                      QStringLiteral("FILE.csv")});
}

int ExportCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("workload"), QStringLiteral("out")}, output,
                        &exitCode)) {
        return exitCode;
    }
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    const QString workload = parser.value(QStringLiteral("workload"));
    const Expected<QString> resolved =
        (*store)->deviceOfWorkload(workload, parser.value(QStringLiteral("device")));
    if (!resolved)
        return output.fail(resolved);
    const QString device = *resolved;

    const Expected<QVector<Measurement>> rows = (*store)->measurements(device, workload);
    if (!rows)
        return output.fail(rows);
    const QByteArray csv = MeasurementCsv::write(*rows);
    const QString outPath = parser.value(QStringLiteral("out"));
    if (const int code = writeOutput(output, outPath, csv); code != kExitOk || outPath == "-")
        return code;
    if (output.json()) {
        output.object({{QStringLiteral("file"), outPath},
                       {QStringLiteral("device"), device},
                       {QStringLiteral("workload"), workload},
                       {QStringLiteral("rows"), rows->size()}});
    } else {
        output.line(QStringLiteral("exported %1 rows of workload '%2' on %3 to %4")
                        .arg(rows->size())
                        .arg(workload, device, outPath));
    }
    return kExitOk;
}

void WorkloadsCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
}

int WorkloadsCommand::run(const QCommandLineParser &parser, Output &output) const
{
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    const Expected<QVector<WorkloadSummary>> summaries = (*store)->summaries();
    if (!summaries)
        return output.fail(summaries);
    if (output.json()) {
        for (const WorkloadSummary &s : *summaries) {
            QJsonObject object {{QStringLiteral("device"), s.device},
                                {QStringLiteral("kind"), s.deviceKind},
                                {QStringLiteral("workload"), s.workload},
                                {QStringLiteral("measurements"), s.measurements},
                                {QStringLiteral("distinct_modes"), s.distinctModes}};
            if (s.isInference())
                object.insert(QStringLiteral("inference_batches"), intArray(s.inferenceBatches));
            else
                object.insert(QStringLiteral("training_batches"), intArray(s.trainingBatches));
            if (s.batchView)
                object.insert(QStringLiteral("batch_view"), true);
            output.object(object);
        }
        return kExitOk;
    }
    if (summaries->isEmpty()) {
        output.line(QStringLiteral("%1 holds no measurements yet").arg((*store)->path()));
        return kExitOk;
    }
    // Columns as wide as their longest entry (simulated-orin-agx is wider than orin-agx).
    int deviceWidth = 16;
    int workloadWidth = 12;
    for (const WorkloadSummary &s : *summaries) {
        deviceWidth = std::max(deviceWidth, int(s.device.size()));
        workloadWidth = std::max(workloadWidth, int(s.workload.size()));
    }
    output.line(QStringLiteral("%1  %2  %3  %4  %5")
                    .arg(QStringLiteral("device"), -deviceWidth)
                    .arg(QStringLiteral("workload"), -workloadWidth)
                    .arg(QStringLiteral("measurements"), 12)
                    .arg(QStringLiteral("modes"), 6)
                    .arg(QStringLiteral("kind")));
    const auto list = [](const QVector<int> &sizes) {
        QStringList out;
        for (int size : sizes)
            out.append(size > 0 ? QString::number(size) : QStringLiteral("unknown"));
        return out.join(QLatin1Char(','));
    };
    for (const WorkloadSummary &s : *summaries) {
        QString kind = QStringLiteral("training");
        if (s.isInference())
            kind = QStringLiteral("inference (bs %1)").arg(list(s.inferenceBatches));
        else if (s.batchView)
            kind = QStringLiteral("training, batch %1 of %2")
                       .arg(list(s.trainingBatches), BatchView::of(s.workload)->workload);
        else if (s.mixesBatches())
            kind = QStringLiteral("training (batch sizes %1: use NAME@BATCH)")
                       .arg(list(s.trainingBatches));
        output.line(QStringLiteral("%1  %2  %3  %4  %5")
                        .arg(s.device, -deviceWidth)
                        .arg(s.workload, -workloadWidth)
                        .arg(s.measurements, 12)
                        .arg(s.distinctModes, 6)
                        .arg(kind));
    }
    return kExitOk;
}

}  // namespace ptwb::cli
