#pragma once

#include "modes/powermode.h"
#include "store/convergence.h"

#include <QVector>

#include <algorithm>
#include <optional>

namespace ptwb {

// One training batch size's candidates: every mode's minibatch time and median power at that
// batch (measured, or predicted by the batch's model), and how far the peak rises above the
// median there.
struct BatchCandidates
{
    int batch = 0;
    QVector<PowerMode> modes;
    QVector<double> timeMs;  // per minibatch of `batch` samples
    QVector<double> powerW;  // median
    // Peak over median power at this batch (the median of the measured ratios; 1 when no peak
    // was measured): a power cap binds on the peak, peakW = powerW * peakRatio ...
    double peakRatio = 1.0;
    // ... unless the peak of each row is known (measured): then these, one per mode.
    QVector<double> peakW;

    double peakAt(int row) const
    {
        return row < peakW.size() ? peakW[row] : powerW[row] * std::max(1.0, peakRatio);
    }
};

enum class AccuracyObjective { Time, Energy };

// The (mode, batch) to train with and what it costs to reach the target accuracy.
struct BatchPick
{
    int batch = 0;
    PowerMode mode;
    double timeMs = 0;  // per minibatch
    double powerW = 0;  // median
    double peakW = 0;  // the power the cap is checked against
    double minibatches = 0;  // to the target accuracy: samples(batch) / batch
    double seconds = 0;  // to the target accuracy: minibatches x time
    double joules = 0;  // to the target accuracy: seconds x median power

    double cost(AccuracyObjective objective) const
    {
        return objective == AccuracyObjective::Time ? seconds : joules;
    }
};

// Co-selection of training minibatch size and power mode (issue 17): under a power cap on the
// peak power, the pair with the least time (or energy) to the target accuracy, where time to
// accuracy is minibatches to accuracy (the convergence relation's samples at that batch, over
// the batch) times the time of one minibatch. Over all four clocks and the core count.
namespace BatchChoice {

// The pair of `batch` that `mode` row `row` stands for.
BatchPick pickOf(const BatchCandidates &batch, int row, const ConvergenceRelation &relation);

// Per batch size (in the order given) its best mode under the cap; a batch none of whose modes
// fits is left out.
QVector<BatchPick> bestPerBatch(const QVector<BatchCandidates> &batches,
                                const ConvergenceRelation &relation, double powerCapW,
                                AccuracyObjective objective);

// The best of bestPerBatch; ties go to the lower peak power. Nothing when no pair fits.
std::optional<BatchPick> choose(const QVector<BatchCandidates> &batches,
                                const ConvergenceRelation &relation, double powerCapW,
                                AccuracyObjective objective);

}  // namespace BatchChoice

}  // namespace ptwb
