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
    const Expected<DeviceSpec> spec = DeviceSpec::builtin(deviceKind);
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

Expected<ConcurrentEvaluator> concurrentEvaluator(const ConcurrentFiles &files,
                                                  const ConcurrentEvaluationOptions &options)
{
    using Result = Expected<ConcurrentEvaluator>;
    const Expected<QVector<Measurement>> training =
        readMeasurementsFile(files.training, files.deviceKind, InputField::Training);
    if (!training)
        return passOn<Result>(training);
    const Expected<QVector<Measurement>> inference =
        readMeasurementsFile(files.inference, files.deviceKind, InputField::Inference);
    if (!inference)
        return passOn<Result>(inference);
    Expected<ConcurrentData> pair = ConcurrentData::join(
        *training, *inference, QFileInfo(files.training).fileName(),
        QFileInfo(files.inference).fileName(), InputField::Training, InputField::Inference);
    if (!pair)
        return passOn<Result>(pair);
    ConcurrentEvaluator evaluator(std::move(pair).value(), files.deviceKind, options);
    if (!options.needsReference())
        return evaluator;
    if (files.trainingReference.isEmpty())
        return Result::badInput(InputField::TrainingReference,
                                QStringLiteral("pt and safe need a reference training workload"));
    const Expected<QVector<Measurement>> reference = readMeasurementsFile(
        files.trainingReference, files.deviceKind, InputField::TrainingReference);
    if (!reference)
        return passOn<Result>(reference);
    const Expected<TrainingData> referenceRows =
        TrainingData::fromMeasurements(*reference, QFileInfo(files.trainingReference).fileName());
    if (!referenceRows)
        return Result::badInput(InputField::TrainingReference, referenceRows.error());
    QVector<Measurement> inferenceReference;
    if (!files.inferenceReference.isEmpty()) {
        const Expected<QVector<Measurement>> read = readMeasurementsFile(
            files.inferenceReference, files.deviceKind, InputField::InferenceReference);
        if (!read)
            return passOn<Result>(read);
        for (const Measurement &m : *read) {
            if (m.inferenceBatch <= 0)
                return Result::badInput(
                    InputField::InferenceReference,
                    QStringLiteral("%1 holds training measurements (no inference batch size); "
                                   "expected inference measurements with a 'bs' column")
                        .arg(QFileInfo(files.inferenceReference).fileName()));
        }
        inferenceReference = *read;
    }
    evaluator.setReferences(*referenceRows, inferenceReference);
    return evaluator;
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
