#pragma once

#include "batch/batchchoice.h"
#include "util/expected.h"

#include <QStringList>

#include <functional>
#include <memory>

namespace ptwb {

class PowerModel;

// What the batch-size evaluation knows to be true: every mode of every batch size measured
// (time, median and peak power), and the samples each batch needs to reach the target.
struct BatchTruth
{
    QString deviceKind;
    QVector<BatchCandidates> batches;  // ascending batch; peakW per row
    ConvergenceRelation samples;  // the true samples to accuracy (the oracle's)
};

struct BatchEvaluationOptions
{
    QVector<double> capsW;  // the power caps, on the peak power
    AccuracyObjective objective = AccuracyObjective::Time;
    QStringList strategies;  // empty: every one (BatchEvaluator::strategyNames)
    int samples = 20;  // profiled modes per batch size, for ours
    int repeats = 5;
    quint64 seed = 0;
    // What a proxy run measured (noisy, or from another host): what every strategy but the
    // oracle knows about samples to accuracy.
    ConvergenceRelation proxySamples;
    // For ours: the reference model that is transferred to each batch size.
    std::shared_ptr<const PowerModel> reference;
    // For the time objective, ours profiles half its modes along the reference's predicted
    // front (when there is a reference), half at random; false, or energy: all at random.
    bool guided = true;
};

// One strategy's answers over every cap and repeat, scored on the truth.
struct BatchStrategyResult
{
    QString strategy;
    int problems = 0;  // caps x repeats that have a feasible (oracle) answer
    double penaltyMedian = 0;  // % above the oracle's time (energy) to accuracy
    double penaltyQ1 = 0;
    double penaltyQ3 = 0;
    double found = 0;  // % of problems with an answer
    double violations = 0;  // % of answers whose measured peak is above the cap
    double profiledPerBatch = 0;  // modes it profiled per batch size (all, for the oracle)
};

// A pick per (strategy, repeat, cap), for --picks and the tests.
struct BatchEvaluationPick
{
    QString strategy;
    int repeat = 0;
    double capW = 0;
    std::optional<BatchPick> pick;  // as the strategy saw it
    double trueCost = 0;  // of its pick, on the truth (NaN without one)
    double truePeakW = 0;
};

// The study's baselines (Accelerated Training on Low-Power Edge Devices) and ours, scored
// against the oracle that knows every measurement and the true samples to accuracy:
//   oracle   the best (mode, batch) on the truth
//   largest  the largest batch size, cores, CPU and memory at their highest, and the GPU clock
//            capped for power: the highest whose measured peak fits (the study's practice)
//   proxy    the same mode, with the batch size the proxy samples say is fastest there
//   pt       ours: per batch size, `samples` profiled modes and the reference transferred to
//            them (PowerTrain), the peak from the profiled modes' peak/median, the proxy
//            samples; the best predicted pair under the cap, over every mode and batch
//   observed ours without a model: the best of the profiled modes only
class BatchEvaluator
{
public:
    static QStringList strategyNames();

    // `cancelled` is polled between repeats.
    static Expected<QVector<BatchStrategyResult>> run(const BatchTruth &truth,
                                                      const BatchEvaluationOptions &options,
                                                      QVector<BatchEvaluationPick> *picks = nullptr,
                                                      const std::function<bool()> &cancelled = {});
};

}  // namespace ptwb
