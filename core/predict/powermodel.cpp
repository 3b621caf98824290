#include "predict/powermodel.h"

#include <QHash>
#include <QSet>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace ptwb {

namespace {

predict::Features features(const PowerMode &mode)
{
    return {double(mode.cores), double(mode.cpuKHz), double(mode.gpuHz), double(mode.emcHz)};
}

std::vector<predict::Features> featureRows(const QVector<PowerMode> &modes)
{
    std::vector<predict::Features> rows;
    rows.reserve(modes.size());
    for (const PowerMode &mode : modes)
        rows.push_back(features(mode));
    return rows;
}

double median(QVector<double> values)
{
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

predict::Callbacks engineCallbacks(const TrainingCallbacks &callbacks, const QString &target)
{
    predict::Callbacks out;
    if (callbacks.progress) {
        out.epochDone = [progress = callbacks.progress, target](const predict::EpochReport &r) {
            progress(
                {target, r.member, r.members, r.epoch, r.epochs, r.trainingLoss, r.validationLoss});
        };
    }
    out.cancelled = callbacks.cancelled;
    return out;
}

// One intra-op thread: measured here, a second one changed neither training (6.2 s) nor
// prediction (70 ms) of the default configuration, while two spinning OpenMP workers on a busy
// machine (tests in parallel, a sweep) made small trainings 15x slower. It also leaves a core to
// the window.
void useOneThread()
{
    predict::Regressor::setThreadCount(1);
}

// Fits the time then the power regressor with `fit(dataset, seed offset, target name)`, turning
// the engine's exceptions into errors that name the workload.
template<typename Fit>
Status fitTimeAndPower(const QString &workload, const TrainingData &data, const QString &what,
                       Fit fit, predict::Regressor *time, predict::Regressor *power)
{
    try {
        const std::vector<predict::Features> x = featureRows(data.modes);
        *time =
            fit(predict::Dataset {x, std::vector<double>(data.timeMs.begin(), data.timeMs.end())},
                0, QStringLiteral("time"));
        *power =
            fit(predict::Dataset {x, std::vector<double>(data.powerW.begin(), data.powerW.end())},
                1, QStringLiteral("power"));
    } catch (const predict::Cancelled &) {
        return Status::failure(QStringLiteral("%1 cancelled").arg(what));
    } catch (const predict::Error &error) {
        return Status::failure(
            QStringLiteral("workload '%1': %2").arg(workload, QString::fromStdString(error.what())),
            ErrorKind::BadInput);
    }
    return {};
}

}  // namespace

namespace {

// "8, 16, 32" (0 reads "unknown": a batch that was not recorded).
QString batchList(const QSet<int> &batches)
{
    QList<int> sorted(batches.cbegin(), batches.cend());
    std::sort(sorted.begin(), sorted.end());
    QStringList sizes;
    for (int batch : sorted)
        sizes.append(batch > 0 ? QString::number(batch) : QStringLiteral("unknown"));
    return sizes.join(QStringLiteral(", "));
}

}  // namespace

Expected<TrainingData> TrainingData::fromMeasurements(const QVector<Measurement> &rows,
                                                      const QString &source)
{
    QSet<int> batches;
    for (const Measurement &m : rows) {
        if (m.inferenceBatch > 0)
            batches.insert(m.inferenceBatch);
    }
    if (!batches.isEmpty()) {
        return Expected<TrainingData>::badInput(
            InputField::Workload,
            QStringLiteral("%1 holds inference measurements (inference minibatch sizes %2), not "
                           "training ones; training, transfer, evaluation and mode selection "
                           "need a workload of training measurements")
                .arg(source, batchList(batches)));
    }
    QSet<int> trainingBatches;
    for (const Measurement &m : rows)
        trainingBatches.insert(m.trainingBatch);
    if (trainingBatches.size() > 1) {
        return Expected<TrainingData>::badInput(
            InputField::Workload,
            QStringLiteral("%1 holds training measurements at several minibatch sizes (%2); a "
                           "model is fitted at one batch size, and reducing them per mode would "
                           "merge different batch sizes as repeats of one mode (a stored "
                           "workload is read one batch at a time as NAME@BATCH)")
                .arg(source, batchList(trainingBatches)));
    }
    QHash<PowerMode, int> position;
    QVector<QVector<double>> times;
    QVector<QVector<double>> powers;
    TrainingData data;
    for (const Measurement &m : rows) {
        auto it = position.find(m.mode);
        if (it == position.end()) {
            it = position.insert(m.mode, int(data.modes.size()));
            data.modes.append(m.mode);
            times.append(QVector<double>());
            powers.append(QVector<double>());
        }
        times[*it].append(m.timeMs);
        powers[*it].append(m.powerW);
        data.ids.append(m.id);
    }
    for (int i = 0; i < data.modes.size(); ++i) {
        data.timeMs.append(median(times[i]));
        data.powerW.append(median(powers[i]));
    }
    return data;
}

TrainingData TrainingData::subset(const QVector<int> &rows) const
{
    TrainingData out;
    for (int row : rows) {
        out.modes.append(modes[row]);
        out.timeMs.append(timeMs[row]);
        out.powerW.append(powerW[row]);
    }
    return out;
}

QString PowerModel::featureLayout(const predict::RegressorConfig &config)
{
    const QString columns = QStringLiteral("cores,cpu_khz,gpu_hz,emc_hz");
    return config.logFeatures ? QStringLiteral("log:%1").arg(columns)
                              : QStringLiteral("raw:%1").arg(columns);
}

Expected<PowerModel> PowerModel::train(const QString &device, const QString &deviceKind,
                                       const QString &workload, const TrainingData &data,
                                       const QString &method, const QString &configName,
                                       quint64 seed, const TrainingCallbacks &callbacks)
{
    try {
        return train(device, deviceKind, workload, data, method,
                     predict::RegressorConfig::byName(configName.toStdString()), seed, callbacks);
    } catch (const predict::Error &error) {
        return Expected<PowerModel>::failure(QString::fromStdString(error.what()),
                                             ErrorKind::BadInput);
    }
}

Expected<PowerModel> PowerModel::train(const QString &device, const QString &deviceKind,
                                       const QString &workload, const TrainingData &data,
                                       const QString &method,
                                       const predict::RegressorConfig &config, quint64 seed,
                                       const TrainingCallbacks &callbacks)
{
    using Result = Expected<PowerModel>;
    if (method != QLatin1String("reference") && method != QLatin1String("nn"))
        return Result::failure(QStringLiteral("unknown training method '%1'").arg(method),
                               ErrorKind::BadInput);
    useOneThread();
    PowerModel model;
    const Status fitted = fitTimeAndPower(
        workload, data, QStringLiteral("training"),
        [&](const predict::Dataset &dataset, int offset, const QString &target) {
            return predict::Regressor::train(config, dataset, seed + offset,
                                             engineCallbacks(callbacks, target));
        },
        &model.m_time, &model.m_power);
    if (!fitted)
        return passOn<Result>(fitted);
    model.m_record.featureLayout = featureLayout(config);
    ModelRecord &r = model.m_record;
    r.device = device;
    r.deviceKind = deviceKind;
    r.workload = workload;
    r.method = method;
    r.config = QString::fromStdString(config.name);
    r.seed = seed;
    r.trainingIds = data.ids;
    return model;
}

Expected<PowerModel> PowerModel::transfer(const QString &device, const QString &deviceKind,
                                          const QString &workload, const TrainingData &data,
                                          quint64 seed, bool allowDeviceTransfer,
                                          const TrainingCallbacks &callbacks) const
{
    using Result = Expected<PowerModel>;
    if (deviceKind != m_record.deviceKind && !allowDeviceTransfer) {
        return Result::badInput(
            InputField::DeviceTransfer,
            QStringLiteral("the reference model of '%1' was trained on %2, but '%3' was measured "
                           "on %4; allow a transfer across device kinds to adapt it")
                .arg(m_record.workload, m_record.deviceKind, workload, deviceKind));
    }
    useOneThread();
    PowerModel model;
    const Status fitted = fitTimeAndPower(
        workload, data, QStringLiteral("transfer"),
        [&](const predict::Dataset &dataset, int offset, const QString &target) {
            const predict::Regressor &reference = offset == 0 ? m_time : m_power;
            predict::Dataset onDevice = dataset;
            onDevice.acrossDevices = deviceKind != m_record.deviceKind;
            return reference.transfer(onDevice, seed + offset, engineCallbacks(callbacks, target));
        },
        &model.m_time, &model.m_power);
    if (!fitted)
        return passOn<Result>(fitted);
    ModelRecord &r = model.m_record;
    r.device = device;
    r.deviceKind = deviceKind;
    r.workload = workload;
    r.method = QStringLiteral("pt");
    r.config = m_record.config;
    r.featureLayout = m_record.featureLayout;
    r.referenceModelId = m_record.id;
    r.referenceDevice = m_record.device;
    r.referenceDeviceKind = m_record.deviceKind;
    r.seed = seed;
    r.trainingIds = data.ids;
    return model;
}

Expected<PowerModel> PowerModel::fromRecord(const ModelRecord &record)
{
    using Result = Expected<PowerModel>;
    PowerModel model;
    try {
        model.m_time = predict::Regressor::deserialize(record.timeModel.toStdString());
        model.m_power = predict::Regressor::deserialize(record.powerModel.toStdString());
    } catch (const predict::DamagedModel &error) {
        return Result::failure(QStringLiteral("model %1 in the store is damaged: %2")
                                   .arg(record.id)
                                   .arg(QString::fromStdString(error.what())));
    } catch (const predict::Error &error) {
        return Result::failure(QStringLiteral("model %1: %2")
                                   .arg(record.id)
                                   .arg(QString::fromStdString(error.what())));
    }
    const QString layout = featureLayout(model.m_time.config());
    if (record.featureLayout != layout) {
        return Result::failure(QStringLiteral("model %1: feature layout '%2' is not the '%3' its "
                                              "weights expect; the model cannot be used")
                                   .arg(record.id)
                                   .arg(record.featureLayout, layout),
                               ErrorKind::BadInput);
    }
    model.m_record = record;
    model.m_record.timeModel.clear();
    model.m_record.powerModel.clear();
    return model;
}

ModelRecord PowerModel::toRecord() const
{
    ModelRecord record = m_record;
    const std::string time = m_time.serialize();
    const std::string power = m_power.serialize();
    record.timeModel = QByteArray(time.data(), qsizetype(time.size()));
    record.powerModel = QByteArray(power.data(), qsizetype(power.size()));
    return record;
}

Expected<ModePredictions> PowerModel::predict(const ModeSpace &space) const
{
    if (space.device().id() != m_record.deviceKind) {
        return Expected<ModePredictions>::failure(
            QStringLiteral("model %1 predicts for %2, not for %3")
                .arg(m_record.id)
                .arg(m_record.deviceKind, space.device().id()),
            ErrorKind::BadInput);
    }
    QVector<PowerMode> modes;
    modes.reserve(space.size());
    for (qint64 i = 0; i < space.size(); ++i)
        modes.append(space.mode(i));
    return predict(modes);
}

ModePredictions PowerModel::predict(const QVector<PowerMode> &modes) const
{
    useOneThread();
    const std::vector<predict::Features> x = featureRows(modes);
    const predict::Prediction time = m_time.predict(x);
    const predict::Prediction power = m_power.predict(x);
    ModePredictions out;
    out.timeMs = QVector<double>(time.mean.begin(), time.mean.end());
    out.timeStdMs = QVector<double>(time.stddev.begin(), time.stddev.end());
    out.powerW = QVector<double>(power.mean.begin(), power.mean.end());
    out.powerStdW = QVector<double>(power.stddev.begin(), power.stddev.end());
    return out;
}

double meanAbsolutePercentageError(const QVector<double> &predicted,
                                   const QVector<double> &observed)
{
    double sum = 0;
    for (int i = 0; i < observed.size(); ++i)
        sum += std::fabs(predicted[i] - observed[i]) / observed[i];
    return observed.isEmpty() ? 0 : 100.0 * sum / observed.size();
}

}  // namespace ptwb
