#pragma once

// A tree of raw run folders on a device kind's modes, as a profiling campaign with the study's
// scripts would leave it: for the command-line test and the import benchmark.

#include "core/rawrunfixture.h"
#include "modes/devicespec.h"
#include "modes/modespace.h"

#include <QVector>

namespace ptwb::test {

// `count` folders on modes spread evenly over the kind's whole mode space. The values are a
// simple function of the clocks (not a performance model): what is measured here is the reading.
inline QVector<PowerMode> writeRawRunTree(const QString &parent, const QString &kind, int count)
{
    const ModeSpace space(DeviceSpec::builtin(kind).value());
    QVector<PowerMode> modes;
    for (int i = 0; i < count; ++i) {
        const PowerMode mode = space.mode(qint64(i) * space.size() / count);
        RawRunSpec spec;
        spec.mode = mode;
        spec.timeMs = 2e11 / double(mode.gpuHz) + 4e8 / double(mode.cpuKHz * mode.cores);
        spec.powerW = 4 + mode.gpuHz / 1e8 + mode.cores * mode.cpuKHz / 2e6 + mode.emcHz / 1e9;
        spec.idleW = spec.powerW * 0.6;
        spec.firstMs = 2000;
        if (kind == QLatin1String("xavier-agx"))
            spec.socFamily = QStringLiteral("tegra194");
        writeRawRun(parent, spec);
        modes.append(mode);
    }
    return modes;
}

}  // namespace ptwb::test
