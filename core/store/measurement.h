#pragma once

#include "modes/powermode.h"

#include <QString>
#include <QVector>

#include <optional>

namespace ptwb {

// One profiled power mode of one workload on one device.
struct Measurement
{
    qint64 id = 0;
    PowerMode mode;
    double timeMs = 0;  // median minibatch time over the clean window
    double powerW = 0;  // median power over the same window
    std::optional<double> timeSpreadMs;  // interquartile range, when known
    std::optional<double> powerSpreadW;
    int minibatches = 0;  // size of the clean window; 0 when unknown (imports)
    QString source;  // "import", "sweep"
    QString measuredAt;  // ISO 8601 UTC
    QString bootId;  // the device's boot id during the measurement, when known
    // Inference measurements only: the inference minibatch size (requests per minibatch), and
    // timeMs is the time of one such minibatch. 0 for training measurements.
    int inferenceBatch = 0;
    // Training measurements only: the training minibatch size it was taken at; 0 when not known
    // (a sweep of the user's own command that was not told its batch).
    int trainingBatch = 0;
    // The largest power sample of the same window, when known: a power cap binds on the peak.
    std::optional<double> peakPowerW;

    double energyJ() const { return powerW * timeMs / 1000.0; }
};

// What the store holds for one (device, workload).
struct WorkloadSummary
{
    QString device;
    QString deviceKind;
    QString workload;
    qint64 measurements = 0;
    qint64 distinctModes = 0;  // power modes, whatever their inference batch sizes
    // The distinct inference minibatch sizes, ascending; empty for a training workload.
    QVector<int> inferenceBatches;
    // The distinct training minibatch sizes, ascending (0: rows whose batch is not known);
    // empty for an inference workload.
    QVector<int> trainingBatches;
    // This is the view of one training batch of a workload measured at several ("NAME@B",
    // BatchView): its rows are the workload's rows at that batch.
    bool batchView = false;

    bool isInference() const { return !inferenceBatches.isEmpty(); }
    // Several training batch sizes: a model is fitted to one at a time, through its views.
    bool mixesBatches() const { return trainingBatches.size() > 1; }
    // What training, transfer and mode selection can use as one workload.
    bool isTrainable() const { return !isInference() && !mixesBatches(); }
};

// A file that was imported, kept so that the same content is never imported twice.
struct ImportRecord
{
    qint64 id = 0;
    QString fileName;
    QString sha256;
    qint64 rows = 0;
    QString importedAt;
};

}  // namespace ptwb
