#pragma once

#include "optimize/strategy.h"

#include <QList>
#include <QSet>

namespace ptwb {

class ResidualCorrection;

// What the model-guided strategies (pt, safe, nn, pts) share: which modes count as known, the
// front they see, and how they spread profiles over it.

// `rows` in ascending order (a QSet's order changes from run to run).
QList<int> sortedRows(const QSet<int> &rows);

// The candidates at `rows` with their observed values, as a model's training data.
TrainingData observedRows(const TrainingData &candidates, const QList<int> &rows);

// Observed values for the `known` rows; for every other candidate its prediction, power raised
// by `sigmas` standard deviations, after correcting the predictions near the known rows when a
// correction is given.
QVector<TradeoffPoint> hybridPoints(const TrainingData &candidates, const QSet<int> &known,
                                    const ModePredictions &raw, double sigmas,
                                    const ResidualCorrection *correction = nullptr);

// Profiles up to `count` modes of a front, one per budget level: the levels are spread evenly
// over the front's power range, and for each the front mode a budget at that level would pick
// (the fastest within it) is profiled, or the closest above when those are all profiled.
// Spreading by power rather than by position on the front puts a verified mode under every
// stretch of budgets: a front is dense where many modes draw nearly the same power and sparse
// elsewhere (docs/optimization.md, "Where the choice error comes from").
void profileAlong(ProfilingOracle &oracle, const QVector<TradeoffPoint> &front, int count);

}  // namespace ptwb
