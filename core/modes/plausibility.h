#pragma once

#include <QString>

#include <optional>

namespace ptwb {

class DeviceSpec;

// A closed range of one measured quantity and its unit, for refusing what no device measures.
struct PlausibleRange
{
    double min = 0;
    double max = 0;
    QString unit;  // "ms", "W"

    bool contains(double value) const;
    // "MIN to MAX UNIT"
    QString text() const;
};

// What a measurement of one device kind can plausibly hold: a device's reply or an imported row
// outside these is refused, never stored (docs/data-format.md, "Plausible values"). Generous on
// purpose: they stop absurd numbers (1e300, a negative time, a peak of a kilowatt), not unusual
// ones.
struct PlausibleRanges
{
    QString device;  // the device kind ("orin-agx"), or "any Jetson"
    // The median time of one minibatch (training or inference), and its quartiles.
    PlausibleRange minibatchMs {0.001, 3600000, QStringLiteral("ms")};
    // The module's power: its median, quartiles and peak sample.
    PlausibleRange powerW {0.1, 500, QStringLiteral("W")};
    int minCores = 1;
    int maxCores = 64;
};

// The ranges of a device kind: its cores from its table, its power from its module's rated
// maximum (with a margin of 2.5 for peaks and rails the rating leaves out).
PlausibleRanges plausibleRangesFor(const DeviceSpec &spec);
// Of a device whose kind is not known: the widest of any Jetson.
PlausibleRanges anyJetsonRanges();

// Each returns "" when the value is plausible, else "FIELD: VALUE, expected ..." naming the field
// as the caller's source calls it ("time_ms.median"); without a field, "VALUE, expected ...".
QString implausibleValue(const QString &field, double value, const PlausibleRange &range,
                         const QString &device);
// q1 <= median <= q3, each in range.
QString implausibleQuartiles(const QString &field, double q1, double median, double q3,
                             const PlausibleRange &range, const QString &device);
// A peak sample: in range and not below the median it peaks over.
QString implausiblePeak(const QString &field, double peak, double median,
                        const PlausibleRange &range, const QString &device);
QString implausibleCores(const QString &field, qint64 cores, const PlausibleRanges &ranges);

// A profiled mode's numbers as the device protocol names them (docs/device-protocol.md,
// `profile`): time_ms and power_w quartiles, power_w.max, mode.cores.
struct ProfileValues
{
    double timeQ1 = 0;
    double timeMedian = 0;
    double timeQ3 = 0;
    double powerQ1 = 0;
    double powerMedian = 0;
    double powerQ3 = 0;
    std::optional<double> peakPowerW;
    std::optional<qint64> cores;
};
// The first implausible field, "" when none is.
QString implausible(const ProfileValues &values, const PlausibleRanges &ranges);

}  // namespace ptwb
