#pragma once

#include "concurrent/concurrentspace.h"
#include "pointcloud.h"

#include <QByteArray>

namespace ptwb::ui {

// What Explore's concurrent mode shows for one problem: every (mode, inference batch) pair of
// the space as a point (x: power in W, y: training minibatches per second, as judged with the
// safe pick's margin), sorted into four layers, and the pick, which is core's
// ConcurrentSpace::choose. A ChartPoint's `mode` is the pair's index in the space.
struct ConcurrentPicture
{
    QVector<ChartPoint> feasibleMeasured;
    QVector<ChartPoint> feasiblePredicted;
    QVector<ChartPoint> infeasibleMeasured;
    QVector<ChartPoint> infeasiblePredicted;
    ConcurrentSpace::Choice pick;
    // Pairs that meet each condition on its own: what a "nothing fits" card points at.
    int keepUp = 0;
    int meetLatency = 0;
    int meetPower = 0;

    int feasibleCount() const { return int(feasibleMeasured.size() + feasiblePredicted.size()); }
    int infeasibleCount() const
    {
        return int(infeasibleMeasured.size() + infeasiblePredicted.size());
    }
};

// `byPower` (pairsByPower's, for the same sigmas) visits the pairs in order of power, so each
// layer comes out in the order the chart keeps its points in and it need not sort them again;
// empty: in the space's order.
ConcurrentPicture pictureOf(const ConcurrentSpace &space, const ConcurrentProblem &problem,
                            double sigmas, const QVector<int> &byPower = {});

// The pairs in order of power (as judged with `sigmas`), which no budget changes.
QVector<int> pairsByPower(const ConcurrentSpace &space, double sigmas);

// Every pair as CSV, one row each: the mode, the batch, the outcome against the problem (as the
// chart shows it) and whether it was measured or predicted.
QByteArray pairsCsv(const ConcurrentSpace &space, const ConcurrentProblem &problem, double sigmas);

}  // namespace ptwb::ui
