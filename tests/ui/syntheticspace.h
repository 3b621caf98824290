#pragma once

// A TradeoffSpace shaped like an AGX Orin training workload: every one of the 18,096 modes
// predicted by a smooth law (with a spread that grows with the GPU clock), the PowerTrain grid's
// 4,368 modes "measured" with a little noise.
// For the Explore view's test and benchmark; no model or store needed.

#include "modes/modespace.h"
#include "optimize/tradeoffspace.h"

#include <QRandomGenerator>

#include <cmath>
#include <memory>

namespace ptwb::test {

inline std::shared_ptr<const TradeoffSpace> syntheticSpace(quint32 seed = 1, double bias = 0,
                                                           int measuredEvery = 1)
{
    const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
    const ModeSpace space(spec);
    const ModeSpace grid =
        ModeSpace::subGrid(spec, QStringLiteral("cores=even;cpu=every:2:2")).value();
    QRandomGenerator noise(seed);
    const auto jitter = [&noise](double amount) {
        return 1 + amount * (2 * noise.generateDouble() - 1);
    };
    const auto law = [](const PowerMode &m, double *timeMs, double *powerW) {
        const double gpu = m.gpuHz / 1e6, cpu = m.cpuKHz / 1e3, mem = m.emcHz / 1e6;
        const double tg = 92 * std::pow(1300.5 / gpu, 0.92);
        const double tc = 16 * std::pow(2201.6 / cpu, 0.85) * std::pow(12.0 / m.cores, 0.3);
        const double tm = 26 * std::pow(3199 / mem, 0.55);
        *timeMs = tg + tc + tm;
        *powerW = 8.5 + 0.6 * m.cores * std::pow(cpu / 2201.6, 1.7) +
            42 * std::pow(gpu / 1300.5, 1.5) * (tg / *timeMs + 0.25) + 6 * (mem / 3199);
    };
    ModePredictions predicted;
    for (qint64 i = 0; i < space.size(); ++i) {
        double t = 0, p = 0;
        law(space.mode(i), &t, &p);
        predicted.timeMs.append(t * (1 + bias) * jitter(0.04));
        predicted.powerW.append(p * jitter(0.03));
        const double uncertain = space.mode(i).gpuHz / 1.3005e9;
        predicted.timeStdMs.append(0.05 * t * uncertain);
        predicted.powerStdW.append(0.08 * p * uncertain);
    }
    TrainingData measured;
    for (qint64 i = 0; i < grid.size(); i += measuredEvery) {
        double t = 0, p = 0;
        law(grid.mode(i), &t, &p);
        measured.modes.append(grid.mode(i));
        measured.timeMs.append(t * jitter(0.02));
        measured.powerW.append(p * jitter(0.015));
    }
    return std::make_shared<const TradeoffSpace>(
        TradeoffSpace::build(spec, measured, predicted, 1).value());
}

}  // namespace ptwb::test
