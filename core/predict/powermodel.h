#pragma once

#include "modes/modespace.h"
#include "predict/regressor.h"
#include "store/measurement.h"
#include "store/modelrecord.h"
#include "util/expected.h"

#include <QVector>

#include <functional>

namespace ptwb {

// Measurements reduced to one row per mode (the median of repeats), ready to train on.
struct TrainingData
{
    QVector<PowerMode> modes;
    QVector<double> timeMs;
    QVector<double> powerW;
    QVector<qint64> ids;  // every measurement id that went in

    // Training measurements only: rows with an inference batch size are refused as bad input
    // (the workload field) naming `source` ("workload 'W' on DEVICE", or a file name), since
    // reducing them per mode would merge different batch sizes as repeats of one mode; so are
    // training rows at more than one training minibatch size, for the same reason.
    static Expected<TrainingData> fromMeasurements(const QVector<Measurement> &rows,
                                                   const QString &source);
    // Only the modes at `rows` (positions into `modes`).
    TrainingData subset(const QVector<int> &rows) const;
    int size() const { return int(modes.size()); }
};

struct TrainingProgress
{
    QString target;  // "time" or "power"
    int member = 0;
    int members = 1;
    int epoch = 0;
    int epochs = 0;
    double trainingLoss = 0;
    double validationLoss = 0;
};

struct TrainingCallbacks
{
    std::function<void(const TrainingProgress &)> progress;
    std::function<bool()> cancelled;
};

struct ModePredictions
{
    QVector<double> timeMs;
    QVector<double> powerW;
    QVector<double> timeStdMs;  // one standard deviation
    QVector<double> powerStdW;
};

// The time and power predictors of one workload on one device kind, with what is needed to use
// them again: both regressors, the feature layout and the provenance in a ModelRecord.
class PowerModel
{
public:
    // "reference" or "nn": trained on the workload's own measurements.
    static Expected<PowerModel> train(const QString &device, const QString &deviceKind,
                                      const QString &workload, const TrainingData &data,
                                      const QString &method, const QString &configName,
                                      quint64 seed, const TrainingCallbacks &callbacks = {});
    // The same with a configuration of one's own (tests use small, fast ones).
    static Expected<PowerModel> train(const QString &device, const QString &deviceKind,
                                      const QString &workload, const TrainingData &data,
                                      const QString &method, const predict::RegressorConfig &config,
                                      quint64 seed, const TrainingCallbacks &callbacks = {});
    // "pt": this reference model adapted to a workload's profiled modes. Measurements from
    // another device kind are refused unless `allowDeviceTransfer`.
    Expected<PowerModel> transfer(const QString &device, const QString &deviceKind,
                                  const QString &workload, const TrainingData &data, quint64 seed,
                                  bool allowDeviceTransfer,
                                  const TrainingCallbacks &callbacks = {}) const;

    // Restores a stored model, refusing one whose feature layout this build does not know.
    static Expected<PowerModel> fromRecord(const ModelRecord &record);
    // The record with weights, ready for Store::saveModel.
    ModelRecord toRecord() const;
    const ModelRecord &record() const { return m_record; }
    void setId(qint64 id) { m_record.id = id; }
    void setMetrics(const QJsonObject &metrics) { m_record.metrics = metrics; }

    // Every mode of `space`, in index order. Refuses a space of another device kind.
    Expected<ModePredictions> predict(const ModeSpace &space) const;
    ModePredictions predict(const QVector<PowerMode> &modes) const;

    // The feature layout a configuration trains on, e.g. "log(cores),log(cpu_khz),...".
    static QString featureLayout(const predict::RegressorConfig &config);

private:
    PowerModel() = default;

    predict::Regressor m_time;
    predict::Regressor m_power;
    ModelRecord m_record;
};

// Mean absolute percentage error, in percent.
double meanAbsolutePercentageError(const QVector<double> &predicted,
                                   const QVector<double> &observed);

}  // namespace ptwb
