#include "store/runreduction.h"

#include "util/quartiles.h"

#include <algorithm>

namespace ptwb {

Expected<ReducedRun> reduceRun(const QVector<RawRunFiles::Minibatch> &minibatches,
                               const QVector<RawRunFiles::PowerSample> &unsortedSamples,
                               const RunReductionOptions &options, const QString &minibatchLog,
                               const QString &powerLog)
{
    using Result = Expected<ReducedRun>;
    const auto bad = [](const QString &message) {
        return Result::failure(message, ErrorKind::BadInput);
    };
    QVector<RawRunFiles::PowerSample> samples = unsortedSamples;
    std::stable_sort(samples.begin(), samples.end(),
                     [](const auto &a, const auto &b) { return a.atS < b.atS; });
    const int window = options.settleSamples;
    if (samples.size() < window) {
        return bad(QStringLiteral("%1: %2 power samples; expected at least %3 to see "
                                  "power settle")
                       .arg(powerLog)
                       .arg(samples.size())
                       .arg(window));
    }

    // Power has settled at the first sample that opens a window of steady samples, looking only
    // after the dropped minibatches: before them the device idles (steady, but not training).
    const int dropped = std::min<int>(options.droppedFirst, minibatches.size());
    const double trainingFrom = dropped > 0 ? minibatches[dropped - 1].endS : 0.0;
    int first = 0;
    while (first < samples.size() && samples[first].atS < trainingFrom)
        ++first;
    std::optional<double> settledAt;
    for (int i = first; i + window <= samples.size() && !settledAt; ++i) {
        QVector<double> watts;
        for (int j = i; j < i + window; ++j)
            watts.append(samples[j].watts);
        const auto [low, high] = std::minmax_element(watts.cbegin(), watts.cend());
        if (*high - *low <= options.settleTolerance * Quartiles::of(watts).median)
            settledAt = samples[i].atS;
    }
    if (!settledAt) {
        return bad(QStringLiteral("%1: power never settled after %2 s (no %3 "
                                  "consecutive samples within %4 % of their median); expected "
                                  "a run long enough to reach a steady state")
                       .arg(powerLog)
                       .arg(trainingFrom, 0, 'f', 1)
                       .arg(window)
                       .arg(options.settleTolerance * 100, 0, 'g', 3));
    }

    QVector<RawRunFiles::Minibatch> clean;
    for (int i = options.droppedFirst; i < minibatches.size(); ++i) {
        if (minibatches[i].startS() >= *settledAt)
            clean.append(minibatches[i]);
    }
    if (clean.size() < options.minMinibatches) {
        return bad(QStringLiteral("%1: %2 clean minibatches (of %3, after the first "
                                  "and after power settled at %4 s); expected at least %5")
                       .arg(minibatchLog)
                       .arg(clean.size())
                       .arg(minibatches.size())
                       .arg(*settledAt, 0, 'f', 1)
                       .arg(options.minMinibatches));
    }

    ReducedRun out;
    out.settledAtS = *settledAt;
    out.windowStartS = clean.front().startS();
    out.windowEndS = clean.back().endS;
    QVector<double> times;
    for (const RawRunFiles::Minibatch &m : clean)
        times.append(m.ms);
    QVector<double> watts;
    for (const RawRunFiles::PowerSample &s : samples) {
        if (s.atS >= out.windowStartS && s.atS <= out.windowEndS)
            watts.append(s.watts);
    }
    if (watts.isEmpty()) {
        return bad(QStringLiteral("%1: no power sample between %2 s and %3 s, while "
                                  "the clean minibatches ran; expected samples on the same "
                                  "clock as %4")
                       .arg(powerLog)
                       .arg(out.windowStartS, 0, 'f', 1)
                       .arg(out.windowEndS, 0, 'f', 1)
                       .arg(minibatchLog));
    }
    const Quartiles time = Quartiles::of(times);
    const Quartiles power = Quartiles::of(watts);
    out.timeMs = time.median;
    out.timeSpreadMs = time.interquartileRange();
    out.powerW = power.median;
    out.powerSpreadW = power.interquartileRange();
    out.minibatches = int(clean.size());
    out.powerSamples = int(watts.size());
    return out;
}

}  // namespace ptwb
