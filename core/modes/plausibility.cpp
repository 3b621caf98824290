#include "modes/plausibility.h"

#include "modes/devicespec.h"

#include <cmath>
#include <utility>

namespace ptwb {

namespace {

// The module's rated maximum power (NVIDIA's data sheets: MAXN), in watts, per device kind
// (docs/devices.md names the sources). Orin NX 16GB: 25 W on JetPack 5/6 before the Super
// modes; Xavier NX: 20 W; AGX Thor T5000: 130 W total module power.
constexpr std::pair<const char *, double> kRatedPowerW[] = {
    {"orin-agx", 60}, {"xavier-agx", 40}, {"orin-nano", 25}, {"orin-nano-super", 25},
    {"orin-nx", 25},  {"xavier-nx", 20},  {"agx-thor", 130},
};
constexpr double kPowerMargin = 2.5;

QString number(double value)
{
    return QString::number(value, 'g', 6);
}

}  // namespace

bool PlausibleRange::contains(double value) const
{
    return std::isfinite(value) && value >= min && value <= max;
}

QString PlausibleRange::text() const
{
    return QStringLiteral("%1 to %2 %3").arg(number(min), number(max), unit);
}

PlausibleRanges anyJetsonRanges()
{
    PlausibleRanges ranges;
    ranges.device = QStringLiteral("any Jetson");
    return ranges;
}

PlausibleRanges plausibleRangesFor(const DeviceSpec &spec)
{
    PlausibleRanges ranges = anyJetsonRanges();
    ranges.device = spec.id();
    ranges.minCores = spec.minCores();
    ranges.maxCores = spec.maxCores();
    for (const auto &[kind, watts] : kRatedPowerW) {
        if (spec.id() == QLatin1String(kind))
            ranges.powerW.max = watts * kPowerMargin;
    }
    return ranges;
}

QString implausibleValue(const QString &field, double value, const PlausibleRange &range,
                         const QString &device)
{
    if (range.contains(value))
        return {};
    const QString what = std::isfinite(value)
        ? QStringLiteral("%1 %2").arg(number(value), range.unit)
        : number(value);
    const QString problem = QStringLiteral("%1, expected %2 on %3").arg(what, range.text(), device);
    return field.isEmpty() ? problem : QStringLiteral("%1: %2").arg(field, problem);
}

QString implausibleQuartiles(const QString &field, double q1, double median, double q3,
                             const PlausibleRange &range, const QString &device)
{
    const std::pair<const char *, double> parts[] = {{"median", median}, {"q1", q1}, {"q3", q3}};
    for (const auto &[name, value] : parts) {
        QString problem = implausibleValue(QStringLiteral("%1.%2").arg(field, QLatin1String(name)),
                                           value, range, device);
        if (!problem.isEmpty())
            return problem;
    }
    if (q1 > median) {
        return QStringLiteral("%1.q1: %2 %3 is above the median %4 %3, expected q1 <= median")
            .arg(field, number(q1), range.unit, number(median));
    }
    if (median > q3) {
        return QStringLiteral("%1.q3: %2 %3 is below the median %4 %3, expected median <= q3")
            .arg(field, number(q3), range.unit, number(median));
    }
    return {};
}

QString implausiblePeak(const QString &field, double peak, double median,
                        const PlausibleRange &range, const QString &device)
{
    if (QString problem = implausibleValue(field, peak, range, device); !problem.isEmpty())
        return problem;
    if (peak < median) {
        return QStringLiteral("%1: %2 %3 is below the median %4 %3, expected the largest sample")
            .arg(field, number(peak), range.unit, number(median));
    }
    return {};
}

QString implausibleCores(const QString &field, qint64 cores, const PlausibleRanges &ranges)
{
    if (cores >= ranges.minCores && cores <= ranges.maxCores)
        return {};
    return QStringLiteral("%1: %2, expected %3 to %4 cores on %5")
        .arg(field)
        .arg(cores)
        .arg(ranges.minCores)
        .arg(ranges.maxCores)
        .arg(ranges.device);
}

QString implausible(const ProfileValues &values, const PlausibleRanges &ranges)
{
    QString problem =
        implausibleQuartiles(QStringLiteral("time_ms"), values.timeQ1, values.timeMedian,
                             values.timeQ3, ranges.minibatchMs, ranges.device);
    if (problem.isEmpty()) {
        problem =
            implausibleQuartiles(QStringLiteral("power_w"), values.powerQ1, values.powerMedian,
                                 values.powerQ3, ranges.powerW, ranges.device);
    }
    if (problem.isEmpty() && values.peakPowerW) {
        problem = implausiblePeak(QStringLiteral("power_w.max"), *values.peakPowerW,
                                  values.powerMedian, ranges.powerW, ranges.device);
    }
    if (problem.isEmpty() && values.cores)
        problem = implausibleCores(QStringLiteral("mode.cores"), *values.cores, ranges);
    return problem;
}

}  // namespace ptwb
