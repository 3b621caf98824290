#pragma once

#include "concurrent/concurrentoracle.h"
#include "concurrent/concurrentstrategy.h"

#include <optional>

namespace ptwb {

// Predicted cost of every pair of a concurrent problem, with one standard deviation of each.
struct PairPredictions
{
    QVector<double> trainTimeMs, trainPowerW, trainTimeStdMs, trainPowerStdW;  // per mode
    QVector<double> inferTimeMs, inferPowerW, inferTimeStdMs, inferPowerStdW;  // per pair

    // The predicted cost of a pair, `sigmas` standard deviations toward the slow, hungry side.
    PairCost cost(const ConcurrentData &data, int pair, double sigmas = 0) const;
};

// Predicts the training workload and the inference workload at every (mode, batch) from the
// pairs profiled so far (docs/optimization.md, "Predicting a pair").
// - Training, per mode: PowerTrain transfer of the reference training model to the profiled
//   modes (pt, safe), or an NN trained on them alone (nn, als).
// - Inference, per pair: the shape over modes comes from a reference (the reference inference
//   model at that batch size; without one, the training model), and a small calibration fitted
//   to the profiled pairs maps it to the target in log time and in power, with terms in
//   log2(batch) so that a few pairs over several batch sizes fit every size:
//     log tI = w0 + w1·log ref + w2·log2 b + w3·log2 b·log ref,  pI = v0 + v1·ref + v2·log2 b
//   Its standard deviation is the fit's residual spread.
class PairPredictor
{
public:
    enum class Training { Transfer, Scratch };
    PairPredictor(Training training, const ConcurrentContext &context);

    // Fits to everything profiled so far; profiled values then replace the predictions.
    Expected<PairPredictions> fit(const ConcurrentOracle &oracle) const;

private:
    Expected<PowerModel> trainingModel(const TrainingData &profiled) const;

    Training m_training;
    const ConcurrentContext &m_context;
};

}  // namespace ptwb
