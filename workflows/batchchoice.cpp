#include "batchchoice.h"

#include "convergencesource.h"
#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "predict/modelfit.h"
#include "predict/powermodel.h"
#include "store/batchview.h"
#include "store/convergencestore.h"
#include "store/store.h"
#include "util/quartiles.h"

#include <QElapsedTimer>
#include <QHash>

#include <algorithm>

namespace ptwb::workflows {

namespace {

// The training batch sizes of `workload` on `device`, each with the name that reads its rows.
Expected<QVector<QPair<int, QString>>> batchesOf(Store &store, const QString &workload,
                                                 const QString &device)
{
    using Result = Expected<QVector<QPair<int, QString>>>;
    const Expected<QVector<WorkloadSummary>> all = store.summaries();
    if (!all)
        return passOn<Result>(all);
    QVector<QPair<int, QString>> out;
    for (const WorkloadSummary &s : *all) {
        if (s.device != device || s.isInference())
            continue;
        if (s.batchView && BatchView::of(s.workload)->workload == workload)
            out.append({s.trainingBatches.value(0), s.workload});
        else if (s.workload == workload && !s.mixesBatches() && s.trainingBatches.value(0) > 0)
            out.append({s.trainingBatches.value(0), s.workload});
    }
    if (out.isEmpty()) {
        return Result::badInput(InputField::Workload,
                                QStringLiteral("workload '%1' on %2 has no training measurements "
                                               "at a known batch size; sweep it with "
                                               "--batch-sizes")
                                    .arg(workload, device));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Peak over median power at one batch: the median of its measured ratios (1 when none).
double peakRatio(const QVector<Measurement> &rows)
{
    QVector<double> ratios;
    for (const Measurement &m : rows) {
        if (m.peakPowerW && m.powerW > 0)
            ratios.append(*m.peakPowerW / m.powerW);
    }
    if (ratios.isEmpty())
        return 1.0;
    std::sort(ratios.begin(), ratios.end());
    const int n = int(ratios.size());
    return n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
}

// One batch's candidates: its model's predictions for every mode of the device (when there is
// a model and it is wanted), measured medians where measured.
Expected<BatchCandidates> candidatesAt(Store &store, const BatchSpace &space, int batch,
                                       const QString &name, bool observedOnly, QString *source)
{
    using Result = Expected<BatchCandidates>;
    const Expected<QVector<Measurement>> rows = store.measurements(space.device, name);
    if (!rows)
        return passOn<Result>(rows);
    const Expected<TrainingData> measured = TrainingData::fromMeasurements(
        *rows, QStringLiteral("workload '%1' on %2").arg(name, space.device));
    if (!measured)
        return passOn<Result>(measured);
    BatchCandidates out;
    out.batch = batch;
    out.peakRatio = peakRatio(*rows);
    *source = QStringLiteral("%1 measured modes").arg(measured->size());
    if (!observedOnly) {
        const Expected<ModelRecord> record = store.latestModel(space.deviceKind, name, QString());
        const Expected<DeviceSpec> spec = DeviceSpec::lookup(space.deviceKind);
        if (record && spec) {
            const Expected<PowerModel> model = PowerModel::fromRecord(*record);
            if (!model)
                return passOn<Result>(model);
            const ModeSpace modes(*spec);
            const Expected<ModePredictions> predicted = model->predict(modes);
            if (!predicted)
                return passOn<Result>(predicted);
            QHash<PowerMode, int> measuredAt;
            for (int i = 0; i < measured->size(); ++i)
                measuredAt.insert(measured->modes[i], i);
            for (qint64 i = 0; i < modes.size(); ++i) {
                const PowerMode mode = modes.mode(i);
                const auto it = measuredAt.constFind(mode);
                out.modes.append(mode);
                out.timeMs.append(it == measuredAt.cend() ? predicted->timeMs[int(i)]
                                                          : measured->timeMs[*it]);
                out.powerW.append(it == measuredAt.cend() ? predicted->powerW[int(i)]
                                                          : measured->powerW[*it]);
            }
            *source =
                QStringLiteral("model %1 (%2) + %3").arg(record->id).arg(record->method, *source);
            return out;
        }
        *source += QStringLiteral(" (no model of %1)").arg(name);
    }
    out.modes = measured->modes;
    out.timeMs = measured->timeMs;
    out.powerW = measured->powerW;
    return out;
}

}  // namespace

Expected<BatchSpace> loadBatchSpace(Store &store, const QString &workload, const QString &device,
                                    bool observedOnly)
{
    using Result = Expected<BatchSpace>;
    // the stored workload, even when named by one of its batch views
    const std::optional<BatchView> view = BatchView::of(workload);
    BatchSpace space;
    space.workload = view ? view->workload : workload;
    const Expected<QString> resolved = store.deviceOfWorkload(space.workload, device);
    if (!resolved)
        return passOn<Result>(resolved);
    space.device = *resolved;
    space.deviceKind = store.deviceKind(space.device).value_or(QString());
    const Expected<std::optional<ConvergenceRelation>> relation =
        ConvergenceStore(store).load(space.workload);
    if (!relation)
        return passOn<Result>(relation);
    if (!relation->has_value()) {
        return Result::badInput(
            InputField::Workload,
            QStringLiteral("workload '%1' has no samples-to-accuracy relation; store one with "
                           "ptwb convergence --workload %1 --import FILE.csv (or --simulate on "
                           "the simulated Jetson)")
                .arg(space.workload));
    }
    space.relation = **relation;
    const Expected<QVector<QPair<int, QString>>> batches =
        batchesOf(store, space.workload, space.device);
    if (!batches)
        return passOn<Result>(batches);
    for (const auto &[batch, name] : *batches) {
        QString source;
        Expected<BatchCandidates> candidates =
            candidatesAt(store, space, batch, name, observedOnly, &source);
        if (!candidates)
            return passOn<Result>(candidates);
        space.batches.append(std::move(candidates).value());
        space.sources.append(QStringLiteral("batch %1: %2").arg(batch).arg(source));
    }
    return space;
}

Expected<BatchTruth> loadBatchTruth(Store &store, const QString &workload, const QString &device)
{
    using Result = Expected<BatchTruth>;
    const Expected<BatchSpace> space = loadBatchSpace(store, workload, device, true);
    if (!space)
        return passOn<Result>(space);
    BatchTruth truth;
    truth.deviceKind = space->deviceKind;
    truth.samples = space->relation;
    for (BatchCandidates batch : space->batches) {
        // the peak of each mode: the median of its measured peaks (repeats), where measured
        const Expected<QVector<Measurement>> rows =
            store.measurements(space->device, BatchView {space->workload, batch.batch}.name());
        if (!rows)
            return passOn<Result>(rows);
        QHash<PowerMode, QVector<double>> peaks;
        for (const Measurement &m : *rows) {
            if (m.peakPowerW)
                peaks[m.mode].append(*m.peakPowerW);
        }
        for (int row = 0; row < batch.modes.size(); ++row) {
            const auto it = peaks.constFind(batch.modes[row]);
            batch.peakW.append(it == peaks.cend() ? batch.powerW[row] * batch.peakRatio
                                                  : Quartiles::of(*it).median);
        }
        truth.batches.append(batch);
    }
    return truth;
}

Expected<std::shared_ptr<const PowerModel>> trainReference(Store &store, const QString &workload,
                                                           const QString &device, quint64 seed)
{
    using Result = Expected<std::shared_ptr<const PowerModel>>;
    const Expected<WorkloadData> data = WorkloadData::load(store, workload, device);
    if (!data)
        return passOn<Result>(data);
    Expected<PowerModel> model =
        PowerModel::train(data->device, data->kind, workload, data->data,
                          QStringLiteral("reference"), QStringLiteral("default"), seed);
    if (!model)
        return passOn<Result>(model);
    return std::shared_ptr<const PowerModel>(
        std::make_shared<PowerModel>(std::move(model).value()));
}

Expected<BatchEvaluationOutcome> runBatchEvaluation(Store &store,
                                                    const BatchEvaluationRequest &request,
                                                    const std::function<bool()> &cancelled)
{
    using Result = Expected<BatchEvaluationOutcome>;
    QElapsedTimer clock;
    clock.start();
    const Expected<BatchTruth> truth = loadBatchTruth(store, request.workload, request.device);
    if (!truth)
        return passOn<Result>(truth);
    BatchEvaluationOptions options = request.options;
    options.proxySamples = truth->samples;
    if (!request.proxySamplesFile.isEmpty()) {
        const Expected<ConvergenceRelation> proxy =
            importedConvergence(request.proxySamplesFile, truth->samples.workload, std::nullopt);
        if (!proxy)
            return passOn<Result>(proxy);
        options.proxySamples = *proxy;
    }
    const bool transfers =
        options.strategies.isEmpty() || options.strategies.contains(QStringLiteral("pt"));
    if (transfers) {
        if (request.referenceWorkload.isEmpty()) {
            return Result::badInput(InputField::Reference,
                                    QStringLiteral("pt transfers a reference; name one (or "
                                                   "leave pt out of the strategies)"));
        }
        const Expected<std::shared_ptr<const PowerModel>> reference =
            trainReference(store, request.referenceWorkload, QString(), options.seed);
        if (!reference) {
            return Result::failure(reference.error(), reference.errorKind(), InputField::Reference);
        }
        options.reference = *reference;
    }
    Expected<QVector<BatchStrategyResult>> results =
        BatchEvaluator::run(*truth, options, nullptr, cancelled);
    if (!results)
        return passOn<Result>(results);
    BatchEvaluationOutcome outcome;
    outcome.results = std::move(results).value();
    outcome.batchSizes = int(truth->batches.size());
    outcome.samplesProvenance = truth->samples.provenance;
    outcome.seconds = clock.nsecsElapsed() / 1e9;
    return outcome;
}

}  // namespace ptwb::workflows
