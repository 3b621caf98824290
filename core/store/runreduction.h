#pragma once

#include "store/rawrunfiles.h"

namespace ptwb {

// How one run's minibatches and power samples become one measurement (the study's method,
// docs/data-format.md "Raw run folders"): drop the first minibatch (kernel selection), find
// where power has settled after it with a sliding window, keep the minibatches that started
// after that,
// and take the median minibatch time and the median power of the samples taken while those
// minibatches ran, with the interquartile range of both.
struct RunReductionOptions
{
    int droppedFirst = 1;
    int settleSamples = 5;  // samples in the sliding window (about 5 s at jtop's 1 Hz)
    double settleTolerance = 0.05;  // the window's max − min within 5 % of its median
    int minMinibatches = 10;
};

struct ReducedRun
{
    double timeMs = 0;
    double timeSpreadMs = 0;  // interquartile range
    double powerW = 0;
    double powerSpreadW = 0;
    int minibatches = 0;  // clean minibatches used
    int powerSamples = 0;  // power samples inside their window
    double settledAtS = 0;  // where power settled, on the run's clock
    double windowStartS = 0;  // first clean minibatch's start
    double windowEndS = 0;  // last clean minibatch's end
};

// Errors are bad input and start with the name of the log that is short of something
// (`minibatchLog` or `powerLog`).
Expected<ReducedRun> reduceRun(const QVector<RawRunFiles::Minibatch> &minibatches,
                               const QVector<RawRunFiles::PowerSample> &samples,
                               const RunReductionOptions &options = {},
                               const QString &minibatchLog = QStringLiteral("epoch stats"),
                               const QString &powerLog = QStringLiteral("power log"));

}  // namespace ptwb
