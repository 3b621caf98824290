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
    // The reference's inference time and power at every pair: what calibrate() maps.
    QVector<double> shapeTimeMs, shapePowerW;

    // Fits the inference calibration to the measured `knownPairs` and predicts every pair
    // again, the known ones with their measured values.
    void calibrate(const ConcurrentData &data, const QVector<int> &knownPairs);
    // The training workload's measured values at a mode that was just profiled.
    void learnTraining(const ConcurrentData &data, int mode);

    // The predicted cost of a pair, `sigmas` standard deviations toward the slow, hungry side.
    PairCost cost(const ConcurrentData &data, int pair, double sigmas = 0) const;
    // The chance that the pair meets every budget of the problem, taking each prediction as
    // normal with its standard deviation (after shifting it `sigmas` toward the hungry side).
    double feasibleChance(const ConcurrentProblem &problem, const ConcurrentData &data, int pair,
                          double sigmas = 0) const;
    // The throughput if both times are kOptimisticSigmas standard deviations faster.
    double optimisticThroughput(const ConcurrentProblem &problem, const ConcurrentData &data,
                                int pair) const;
    static constexpr double kOptimisticSigmas = 2.0;
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
//   Standard deviations: the training model's relative leave-one-out error over the profiled
//   modes (a transfer's own ensemble spread is unreliable from 8 modes: 5 % to 1,000 %), and
//   the calibration's leave-one-out residuals.
class PairPredictor
{
public:
    enum class Training { Transfer, Scratch };
    PairPredictor(Training training, const ConcurrentContext &context);

    // Fits to everything profiled so far; profiled values then replace the predictions.
    Expected<PairPredictions> fit(const ConcurrentOracle &oracle) const;

private:
    // Relative standard deviations of the training predictions, from leave-one-out transfers.
    struct RelativeSpread
    {
        double time = 0;
        double power = 0;
    };
    static constexpr int kMinModesForLeaveOneOut = 4;
    static constexpr double kMinRelativeSpread = 0.02;
    static constexpr double kDefaultRelativeSpread = 0.15;

    Expected<PowerModel> trainingModel(const TrainingData &profiled) const;
    Expected<RelativeSpread> trainingSpread(const TrainingData &profiled) const;

    Training m_training;
    const ConcurrentContext &m_context;
};

}  // namespace ptwb
