#include "modelcommands.h"

#include "modelworkflow.h"
#include "predict/powermodel.h"
#include "store/store.h"
#include "util/numbertext.h"

#include <QJsonArray>

namespace ptwb::cli {

namespace {

QCommandLineOption seedOption()
{
    return {QStringLiteral("seed"), QStringLiteral("Seed: the same seed gives the same model."),
            QStringLiteral("N"), QStringLiteral("1")};
}

QCommandLineOption progressOption()
{
    return {QStringLiteral("progress"), QStringLiteral("Print every epoch's losses on stderr.")};
}

TrainingCallbacks reporting(Output &output, bool everyEpoch)
{
    TrainingCallbacks callbacks;
    callbacks.progress = [&output, everyEpoch](const TrainingProgress &p) {
        if (!everyEpoch && p.epoch != p.epochs)
            return;
        output.err() << QStringLiteral("%1 model, member %2/%3: epoch %4/%5, training loss %6, "
                                       "validation loss %7")
                            .arg(p.target)
                            .arg(p.member + 1)
                            .arg(p.members)
                            .arg(p.epoch)
                            .arg(p.epochs)
                            .arg(p.trainingLoss, 0, 'g', 4)
                            .arg(p.validationLoss, 0, 'g', 4)
                     << Qt::endl;
    };
    return callbacks;
}

int report(const ModelRecord &r, Output &output)
{
    if (output.json()) {
        QJsonObject object = r.metrics;
        object.insert(QStringLiteral("model_id"), r.id);
        object.insert(QStringLiteral("workload"), r.workload);
        object.insert(QStringLiteral("device"), r.device);
        object.insert(QStringLiteral("kind"), r.deviceKind);
        object.insert(QStringLiteral("method"), r.method);
        object.insert(QStringLiteral("config"), r.config);
        if (r.referenceModelId > 0) {
            object.insert(QStringLiteral("reference_model_id"), r.referenceModelId);
            object.insert(QStringLiteral("reference_device"), r.referenceDevice);
            object.insert(QStringLiteral("reference_kind"), r.referenceDeviceKind);
        }
        output.object(object);
    } else {
        output.line(
            QStringLiteral("model %1: %2 model of '%3' on %4 (%5 configuration) from %6 "
                           "modes in %7 s; in-sample MAPE time %8 %, power %9 %")
                .arg(r.id)
                .arg(r.method, r.workload, r.deviceKind, r.config)
                .arg(r.metrics.value(QStringLiteral("modes")).toInt())
                .arg(r.metrics.value(QStringLiteral("seconds")).toDouble(), 0, 'f', 2)
                .arg(r.metrics.value(QStringLiteral("time_mape_train")).toDouble(), 0, 'f', 2)
                .arg(r.metrics.value(QStringLiteral("power_mape_train")).toDouble(), 0, 'f', 2));
        if (r.acrossDevices()) {
            const QString where = r.referenceDevice == r.referenceDeviceKind
                ? r.referenceDevice
                : QStringLiteral("%1 (%2)").arg(r.referenceDevice, r.referenceDeviceKind);
            output.line(QStringLiteral("across devices: reference model %1 was trained on %2")
                            .arg(r.referenceModelId)
                            .arg(where));
        }
    }
    return kExitOk;
}

bool parseSeed(const QCommandLineParser &parser, quint64 *seed)
{
    bool ok = false;
    *seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
    return ok;
}

}  // namespace

void TrainCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("workload"), QStringLiteral("Workload to train on."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device, when the workload was measured on several."),
                      QStringLiteral("DEVICE")});
    parser.addOption({QStringLiteral("method"),
                      QStringLiteral("reference (default: for transfer to other workloads) or nn "
                                     "(a model of this workload only)."),
                      QStringLiteral("METHOD"), QStringLiteral("reference")});
    parser.addOption({QStringLiteral("config"),
                      QStringLiteral("default (this project's) or baseline (the published "
                                     "PowerTrain design)."),
                      QStringLiteral("CONFIG"), QStringLiteral("default")});
    parser.addOption(seedOption());
    parser.addOption(progressOption());
}

int TrainCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("workload")}, output, &exitCode))
        return exitCode;
    workflows::TrainRequest request;
    if (!parseSeed(parser, &request.seed))
        return output.badUsage(QStringLiteral("--seed: expected a whole number >= 0"));
    request.databasePath = dbPath(parser);
    request.workload = parser.value(QStringLiteral("workload"));
    request.device = parser.value(QStringLiteral("device"));
    request.method = parser.value(QStringLiteral("method"));
    request.configName = parser.value(QStringLiteral("config"));
    const Expected<ModelRecord> model =
        workflows::train(request, reporting(output, parser.isSet(QStringLiteral("progress"))));
    return model ? report(*model, output) : output.fail(model);
}

void TransferCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("from"),
                      QStringLiteral("Reference workload: its newest reference model is used."),
                      QStringLiteral("REF")});
    parser.addOption({QStringLiteral("reference-model"),
                      QStringLiteral("Use this model id as the reference instead."),
                      QStringLiteral("ID")});
    parser.addOption({QStringLiteral("to"),
                      QStringLiteral("Target workload, with a few profiled modes."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device, when the target was measured on several."),
                      QStringLiteral("DEVICE")});
    parser.addOption({QStringLiteral("device-transfer"),
                      QStringLiteral("Allow a reference model of another device kind (e.g. "
                                     "AGX Orin -> Orin Nano).")});
    parser.addOption(seedOption());
    parser.addOption(progressOption());
}

QString TransferCommand::optionFor(InputField field) const
{
    switch (field) {
    case InputField::Workload:
        return QStringLiteral("to");
    case InputField::Reference:
        return QStringLiteral("from");
    default:
        return Command::optionFor(field);
    }
}

int TransferCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("to")}, output, &exitCode))
        return exitCode;
    if (parser.value(QStringLiteral("from")).isEmpty() &&
        parser.value(QStringLiteral("reference-model")).isEmpty()) {
        return output.badUsage(QStringLiteral("missing --from (or --reference-model); see --help "
                                              "for the options"));
    }
    workflows::TransferRequest request;
    if (!parseSeed(parser, &request.seed))
        return output.badUsage(QStringLiteral("--seed: expected a whole number >= 0"));
    if (const QString id = parser.value(QStringLiteral("reference-model")); !id.isEmpty()) {
        bool ok = false;
        request.referenceModelId = id.toLongLong(&ok);
        if (!ok || request.referenceModelId <= 0)
            return output.badUsage(
                QStringLiteral("--reference-model: '%1' is not a model id").arg(id));
    }
    request.databasePath = dbPath(parser);
    request.referenceWorkload = parser.value(QStringLiteral("from"));
    request.workload = parser.value(QStringLiteral("to"));
    request.device = parser.value(QStringLiteral("device"));
    request.allowDeviceTransfer = parser.isSet(QStringLiteral("device-transfer"));
    const Expected<ModelRecord> model =
        workflows::transfer(request, reporting(output, parser.isSet(QStringLiteral("progress"))));
    if (!model && model.field() == InputField::Reference && request.referenceModelId > 0)
        return output.badUsage(QStringLiteral("--reference-model: %1").arg(model.error()));
    return model ? report(*model, output) : output.fail(model);
}

void PredictCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("workload"),
                      QStringLiteral("Workload: its newest model is used."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("model"), QStringLiteral("Use this model id instead."),
                      QStringLiteral("ID")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device kind to predict for (default: the model's)."),
                      QStringLiteral("KIND")});
    parser.addOption({QStringLiteral("grid"),
                      QStringLiteral("Only the modes of this sub-grid (see ptwb modes --help)."),
                      QStringLiteral("SPEC")});
    parser.addOption({QStringLiteral("out"),
                      QStringLiteral("CSV file, or - for standard output (default -)."),
                      QStringLiteral("FILE.csv"), QStringLiteral("-")});
}

int PredictCommand::run(const QCommandLineParser &parser, Output &output) const
{
    const QString workload = parser.value(QStringLiteral("workload"));
    const QString modelId = parser.value(QStringLiteral("model"));
    if (workload.isEmpty() && modelId.isEmpty())
        return output.badUsage(QStringLiteral("missing --workload (or --model); see --help for "
                                              "the options"));
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    Expected<ModelRecord> record = Expected<ModelRecord>::failure(QString());
    if (!modelId.isEmpty()) {
        bool ok = false;
        record = (*store)->model(modelId.toLongLong(&ok));
        if (!ok)
            return output.badUsage(QStringLiteral("--model: '%1' is not a model id").arg(modelId));
    } else {
        record = (*store)->latestModel(parser.value(QStringLiteral("device")), workload, QString());
    }
    if (!record)
        return output.fail(record);
    const Expected<PowerModel> model = PowerModel::fromRecord(*record);
    if (!model)
        return output.fail(model);
    const QString kind = parser.value(QStringLiteral("device")).isEmpty()
        ? record->deviceKind
        : parser.value(QStringLiteral("device"));
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(kind);
    if (!spec)
        return output.badUsage(spec.error());
    const Expected<ModeSpace> space =
        ModeSpace::subGrid(*spec, parser.value(QStringLiteral("grid")));
    if (!space)
        return output.badUsage(space.error());
    const Expected<ModePredictions> predicted = model->predict(*space);
    if (!predicted)
        return output.fail(predicted);

    if (output.json()) {
        QTextStream &out = output.out();
        for (qint64 i = 0; i < space->size(); ++i) {
            out << QStringLiteral("{\"mode\":\"%1\",\"time_ms\":%2,\"power_w\":%3,"
                                  "\"time_std_ms\":%4,\"power_std_w\":%5}\n")
                       .arg(space->mode(i).toCanonical())
                       .arg(predicted->timeMs[i], 0, 'g', 10)
                       .arg(predicted->powerW[i], 0, 'g', 10)
                       .arg(predicted->timeStdMs[i], 0, 'g', 10)
                       .arg(predicted->powerStdW[i], 0, 'g', 10);
        }
        out.flush();
        return kExitOk;
    }
    QByteArray csv = "cores,cpu,gpu,mem,predicted_time,predicted_power,time_std,power_std\n";
    csv.reserve(space->size() * 100);
    for (qint64 i = 0; i < space->size(); ++i) {
        appendModeColumns(csv, space->mode(i));
        appendShortest(csv, predicted->timeMs[i]);
        csv += ',';
        appendShortest(csv, predicted->powerW[i]);
        csv += ',';
        appendShortest(csv, predicted->timeStdMs[i]);
        csv += ',';
        appendShortest(csv, predicted->powerStdW[i]);
        csv += '\n';
    }
    const QString outPath = parser.value(QStringLiteral("out"));
    if (const int code = writeOutput(output, outPath, csv); code != kExitOk || outPath == "-")
        return code;
    output.err() << QStringLiteral("predicted %1 modes of %2 with model %3 into %4")
                        .arg(space->size())
                        .arg(kind)
                        .arg(record->id)
                        .arg(outPath)
                 << Qt::endl;
    return kExitOk;
}

void ModelsCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
}

int ModelsCommand::run(const QCommandLineParser &parser, Output &output) const
{
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    const Expected<QVector<ModelRecord>> models = (*store)->models();
    if (!models)
        return output.fail(models);
    for (const ModelRecord &m : *models) {
        if (output.json()) {
            QJsonObject object {{QStringLiteral("model_id"), m.id},
                                {QStringLiteral("workload"), m.workload},
                                {QStringLiteral("device"), m.device},
                                {QStringLiteral("kind"), m.deviceKind},
                                {QStringLiteral("method"), m.method},
                                {QStringLiteral("config"), m.config},
                                {QStringLiteral("feature_layout"), m.featureLayout},
                                {QStringLiteral("seed"), double(m.seed)},
                                {QStringLiteral("training_modes"), m.trainingIds.size()},
                                {QStringLiteral("metrics"), m.metrics},
                                {QStringLiteral("created_at"), m.createdAt}};
            if (m.referenceModelId > 0) {
                object.insert(QStringLiteral("reference_model_id"), m.referenceModelId);
                object.insert(QStringLiteral("reference_device"), m.referenceDevice);
                object.insert(QStringLiteral("reference_kind"), m.referenceDeviceKind);
            }
            output.object(object);
        } else {
            output.line(QStringLiteral("%1  %2  %3  %4  %5  %6 measurements  %7%8")
                            .arg(m.id, 4)
                            .arg(m.workload, -24)
                            .arg(m.deviceKind, -10)
                            .arg(m.method, -9)
                            .arg(m.config, -8)
                            .arg(m.trainingIds.size(), 5)
                            .arg(m.createdAt)
                            .arg(m.acrossDevices() ? QStringLiteral("  from #%1 on %2")
                                                         .arg(m.referenceModelId)
                                                         .arg(m.referenceDeviceKind)
                                                   : QString()));
        }
    }
    if (models->isEmpty() && !output.json())
        output.line(QStringLiteral("%1 holds no models yet").arg((*store)->path()));
    return kExitOk;
}

}  // namespace ptwb::cli
