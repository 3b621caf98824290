#pragma once

// Chart data shaped like an AGX Orin training workload, for the chart's test and benchmark.

#include "optimize/paretofront.h"
#include "tradeoffchart.h"

#include <QRandomGenerator>

#include <cmath>

namespace ptwb::test {

struct SyntheticWorkload
{
    QVector<ui::ChartPoint> predicted;  // every mode
    QVector<ui::ChartPoint> observed;  // the 4,368 modes the public data set profiles
    QVector<ui::ChartPoint> observedFront;
    QVector<ui::ChartPoint> predictedFront;
};

inline QVector<ui::ChartPoint> paretoOf(const QVector<ui::ChartPoint> &points)
{
    QVector<TradeoffPoint> in;
    for (const ui::ChartPoint &p : points)
        in.append({p.mode, p.powerW, p.time});
    const ParetoFront front(in);
    QVector<ui::ChartPoint> out;
    for (const TradeoffPoint &p : front.powerTime())
        out.append({p.mode, p.powerW, p.timeMs});
    return out;
}

// 12 core counts x 29 CPU x 13 GPU x 4 memory frequencies = 18,096 modes; power about
// 10-55 W, time per minibatch about 150-1500 ms. `seed` varies the prediction error, `bias`
// shifts every predicted time (a different model).
inline SyntheticWorkload syntheticWorkload(quint32 seed = 1, double bias = 0)
{
    static const double mem[] = {204, 665.6, 2133, 3199};
    QRandomGenerator predictionNoise(seed);
    QRandomGenerator measurementNoise(7);
    const auto jitter = [](QRandomGenerator &g, double amount) {
        return 1 + amount * (2 * g.generateDouble() - 1);
    };
    SyntheticWorkload out;
    out.predicted.reserve(18096);
    int mode = 0;
    for (int cores = 1; cores <= 12; ++cores) {
        for (int c = 0; c < 29; ++c) {
            const double cpu = 115.2 + c * (2201.6 - 115.2) / 28;
            for (int g = 0; g < 13; ++g) {
                const double gpu = 114.75 + g * (1300.5 - 114.75) / 12;
                for (double m : mem) {
                    const double tg = 92 * std::pow(1300.5 / gpu, 0.92);
                    const double tc =
                        16 * std::pow(2201.6 / cpu, 0.85) * std::pow(12.0 / cores, 0.3);
                    const double tm = 26 * std::pow(3199 / m, 0.55);
                    const double time = tg + tc + tm;
                    const double power = 8.5 + 0.6 * cores * std::pow(cpu / 2201.6, 1.7) +
                        42 * std::pow(gpu / 1300.5, 1.5) * (tg / time + 0.25) + 6 * (m / 3199);
                    out.predicted.append({mode, power * jitter(predictionNoise, 0.03),
                                          time * (1 + bias) * jitter(predictionNoise, 0.04)});
                    if (cores % 2 == 0 && c % 2 == 0 && c >= 2)
                        out.observed.append({mode, power * jitter(measurementNoise, 0.015),
                                             time * jitter(measurementNoise, 0.02)});
                    ++mode;
                }
            }
        }
    }
    out.observedFront = paretoOf(out.observed);
    out.predictedFront = paretoOf(out.predicted);
    return out;
}

}  // namespace ptwb::test
