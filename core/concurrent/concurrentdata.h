#pragma once

#include "concurrent/concurrentproblem.h"
#include "predict/powermodel.h"
#include "store/measurement.h"
#include "util/expected.h"

#include <QVector>

namespace ptwb {

// A training workload and an inference workload measured on the same modes, seen as the
// (mode, inference batch) pairs of the concurrent problem. Pair p is mode p / batches, batch
// index p % batches. Repeated measurements of a mode (or of a mode and batch) are reduced to
// their median. A pair whose inference was not measured has NaN inference time and power.
struct ConcurrentData
{
    QVector<PowerMode> modes;  // measured for both workloads, in the inference file's order
    QVector<int> batches;  // the inference batch sizes, ascending
    QVector<double> trainTimeMs;  // per mode
    QVector<double> trainPowerW;
    QVector<double> inferTimeMs;  // per pair
    QVector<double> inferPowerW;

    int pairCount() const { return int(modes.size() * batches.size()); }
    int modeOf(int pair) const { return pair / int(batches.size()); }
    int batchIndexOf(int pair) const { return pair % int(batches.size()); }
    int batchOf(int pair) const { return batches[batchIndexOf(pair)]; }
    int pairOf(int mode, int batchIndex) const { return mode * int(batches.size()) + batchIndex; }
    bool isMeasured(int pair) const;
    PairCost cost(int pair) const;

    // The training workload alone, one row per mode, for its predictors.
    TrainingData training() const;
    // The inference workload at one batch size, one row per mode (NaN where not measured).
    TrainingData inference(int batchIndex) const;

    // Joins the two workloads' measurements on their common modes. Training rows must have no
    // inference batch and inference rows one; errors are bad input about `trainingField` or
    // `inferenceField` and name `trainingName` / `inferenceName` (a file or a workload).
    static Expected<ConcurrentData> join(const QVector<Measurement> &training,
                                         const QVector<Measurement> &inference,
                                         const QString &trainingName, const QString &inferenceName,
                                         InputField trainingField = InputField::Workload,
                                         InputField inferenceField = InputField::Workload);
};

}  // namespace ptwb
