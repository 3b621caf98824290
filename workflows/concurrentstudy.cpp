#include "concurrentstudy.h"

#include "modes/modespace.h"
#include "store/measurementcsv.h"
#include "store/store.h"

#include <QFile>
#include <QFileInfo>

namespace ptwb::workflows {

Expected<QVector<Measurement>> readMeasurementsFile(const QString &path, const QString &deviceKind,
                                                    InputField field)
{
    using Result = Expected<QVector<Measurement>>;
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(deviceKind);
    if (!spec)
        return Result::failure(spec.error(), ErrorKind::BadInput);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result::badInput(
            field, QStringLiteral("%1: cannot read: %2").arg(path, file.errorString()));
    const auto parsed =
        MeasurementCsv::parse(file.readAll(), QFileInfo(path).fileName(), ModeSpace(*spec));
    if (!parsed)
        return Result::badInput(field, parsed.error());
    return parsed->rows;
}

namespace {

using Rows = Expected<QVector<Measurement>>;

// One workload of an evaluation: its name for messages (a file or a stored workload) and how to
// read its rows, called only when they are needed. No `read`: the workload was not given.
struct Source
{
    QString name;
    std::function<Rows()> read;
};

// The one set-up of an evaluator, whatever the workloads come from.
Expected<ConcurrentEvaluator> buildEvaluator(const Source &training, const Source &inference,
                                             const Source &trainingReference,
                                             const Source &inferenceReference,
                                             const QString &deviceKind,
                                             const ConcurrentEvaluationOptions &options)
{
    using Result = Expected<ConcurrentEvaluator>;
    const Rows trainingRows = training.read();
    if (!trainingRows)
        return passOn<Result>(trainingRows);
    const Rows inferenceRows = inference.read();
    if (!inferenceRows)
        return passOn<Result>(inferenceRows);
    Expected<ConcurrentData> pair =
        ConcurrentData::join(*trainingRows, *inferenceRows, training.name, inference.name,
                             InputField::Training, InputField::Inference);
    if (!pair)
        return passOn<Result>(pair);
    ConcurrentEvaluator evaluator(std::move(pair).value(), deviceKind, options);
    if (!options.needsReference())
        return evaluator;
    if (!trainingReference.read)
        return Result::badInput(InputField::TrainingReference,
                                QStringLiteral("pt and safe need a reference training workload"));
    const Rows reference = trainingReference.read();
    if (!reference)
        return passOn<Result>(reference);
    const Expected<TrainingData> referenceRows =
        TrainingData::fromMeasurements(*reference, trainingReference.name);
    if (!referenceRows)
        return Result::badInput(InputField::TrainingReference, referenceRows.error());
    QVector<Measurement> inferenceReferenceRows;
    if (inferenceReference.read) {
        const Rows read = inferenceReference.read();
        if (!read)
            return passOn<Result>(read);
        for (const Measurement &m : *read) {
            if (m.inferenceBatch <= 0)
                return Result::badInput(
                    InputField::InferenceReference,
                    QStringLiteral("%1 holds training measurements (no inference batch size); "
                                   "expected inference measurements with a 'bs' column")
                        .arg(inferenceReference.name));
        }
        inferenceReferenceRows = *read;
    }
    evaluator.setReferences(*referenceRows, inferenceReferenceRows);
    return evaluator;
}

Source fileSource(const QString &path, const QString &deviceKind, InputField field)
{
    if (path.isEmpty())
        return {};
    return {QFileInfo(path).fileName(),
            [path, deviceKind, field] { return readMeasurementsFile(path, deviceKind, field); }};
}

// A stored workload's rows; `inference` reads them as Store::inferenceMeasurements does.
Source storeSource(Store &store, const StoredWorkload &stored, bool inference, InputField field)
{
    if (stored.workload.isEmpty())
        return {};
    return {QStringLiteral("workload '%1'").arg(stored.workload),
            [&store, stored, inference, field]() -> Rows {
                const auto aboutField = [field](const auto &failed) {
                    return failed.errorKind() == ErrorKind::BadInput
                        ? Rows::badInput(field, failed.error())
                        : passOn<Rows>(failed);
                };
                if (inference) {
                    Rows rows = store.inferenceMeasurements(stored.workload, stored.device);
                    return rows ? rows : aboutField(rows);
                }
                const Expected<QString> device =
                    store.deviceOfWorkload(stored.workload, stored.device);
                if (!device)
                    return aboutField(device);
                return store.measurements(*device, stored.workload);
            }};
}

}  // namespace

Expected<ConcurrentEvaluator> concurrentEvaluator(const ConcurrentFiles &files,
                                                  const ConcurrentEvaluationOptions &options)
{
    return buildEvaluator(
        fileSource(files.training, files.deviceKind, InputField::Training),
        fileSource(files.inference, files.deviceKind, InputField::Inference),
        fileSource(files.trainingReference, files.deviceKind, InputField::TrainingReference),
        fileSource(files.inferenceReference, files.deviceKind, InputField::InferenceReference),
        files.deviceKind, options);
}

Expected<ConcurrentEvaluator> concurrentEvaluator(Store &store,
                                                  const ConcurrentWorkloads &workloads,
                                                  const ConcurrentEvaluationOptions &options)
{
    using Result = Expected<ConcurrentEvaluator>;
    if (workloads.training.workload.isEmpty() || workloads.inference.workload.isEmpty())
        return Result::badInput(InputField::Training,
                                QStringLiteral("choose a training and an inference workload"));
    const Expected<QString> device =
        store.deviceOfWorkload(workloads.training.workload, workloads.training.device);
    if (!device)
        return device.errorKind() == ErrorKind::BadInput
            ? Result::badInput(InputField::Training, device.error())
            : passOn<Result>(device);
    const std::optional<QString> kind = store.deviceKind(*device);
    if (!kind)
        return Result::failure(QStringLiteral("device '%1' has no kind in the store").arg(*device));
    return buildEvaluator(
        storeSource(store, workloads.training, false, InputField::Training),
        storeSource(store, workloads.inference, true, InputField::Inference),
        storeSource(store, workloads.trainingReference, false, InputField::TrainingReference),
        storeSource(store, workloads.inferenceReference, true, InputField::InferenceReference),
        *kind, options);
}

Expected<ConcurrentSpace> loadConcurrentSpace(Store &store, const QString &device,
                                              const QString &trainingWorkload,
                                              const QString &inferenceWorkload)
{
    using Result = Expected<ConcurrentSpace>;
    Expected<TradeoffSpace> training = TradeoffSpace::load(store, trainingWorkload, device, false);
    if (!training)
        return training.field() == InputField::Workload
            ? Result::badInput(InputField::Training, training.error())
            : passOn<Result>(training);
    const Expected<QVector<Measurement>> inference =
        store.inferenceMeasurements(inferenceWorkload, training->device());
    if (!inference)
        return inference.field() == InputField::Workload
            ? Result::badInput(InputField::Inference, inference.error())
            : passOn<Result>(inference);
    return ConcurrentSpace::build(*training, *inference,
                                  QStringLiteral("workload '%1'").arg(inferenceWorkload));
}

}  // namespace ptwb::workflows
