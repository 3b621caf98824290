#pragma once

#include "modes/modespace.h"
#include "predict/powermodel.h"

#include <cmath>
#include <random>

// A known smooth function of the four mode features, shaped like a training workload: time falls
// with every clock (the GPU most), power rises with them. `gpuWeight` shifts the balance, so two
// "workloads" differ the way ResNet and MobileNet do.
inline double syntheticTime(const ptwb::PowerMode &m, double gpuWeight = 0.7)
{
    return 20.0 +
        300.0 * std::pow(1.3005e9 / m.gpuHz, gpuWeight) * std::pow(3.199e9 / m.emcHz, 0.15) *
        std::pow(2.2016e6 / m.cpuKHz, 0.1) * std::pow(12.0 / m.cores, 0.05);
}

inline double syntheticPower(const ptwb::PowerMode &m, double gpuWeight = 0.7)
{
    return 8.0 + 25.0 * gpuWeight * (m.gpuHz / 1.3005e9) + 6.0 * (m.emcHz / 3.199e9) +
        4.0 * (m.cpuKHz / 2.2016e6) * (m.cores / 12.0);
}

// `count` distinct random modes of a device kind with synthetic measurements.
inline ptwb::TrainingData syntheticDataOf(const QString &kind, int count, quint64 seed,
                                          double gpuWeight = 0.7)
{
    const ptwb::ModeSpace space(ptwb::DeviceSpec::lookup(kind).value());
    std::mt19937_64 rng(seed);
    QVector<qint64> indices(space.size());
    std::iota(indices.begin(), indices.end(), 0);
    std::shuffle(indices.begin(), indices.end(), rng);
    ptwb::TrainingData data;
    for (int i = 0; i < count; ++i) {
        const ptwb::PowerMode mode = space.mode(indices[i]);
        data.modes.append(mode);
        data.timeMs.append(syntheticTime(mode, gpuWeight));
        data.powerW.append(syntheticPower(mode, gpuWeight));
        data.ids.append(i + 1);
    }
    return data;
}

// The same on the AGX Orin.
inline ptwb::TrainingData syntheticData(int count, quint64 seed, double gpuWeight = 0.7)
{
    return syntheticDataOf(QStringLiteral("orin-agx"), count, seed, gpuWeight);
}

// Small and quick, for tests: the shape of the default configuration at a fraction of the cost.
inline ptwb::predict::RegressorConfig quickConfig()
{
    ptwb::predict::RegressorConfig config = ptwb::predict::RegressorConfig::defaults();
    config.name = "quick";
    config.hidden = {32, 16};
    config.ensemble = 2;
    config.epochs = 60;
    config.batchSize = 64;
    config.learningRate = 5e-3;
    return config;
}

inline std::vector<ptwb::predict::Features> featuresOf(const ptwb::TrainingData &data)
{
    std::vector<ptwb::predict::Features> x;
    for (const ptwb::PowerMode &m : data.modes)
        x.push_back({double(m.cores), double(m.cpuKHz), double(m.gpuHz), double(m.emcHz)});
    return x;
}

inline ptwb::predict::Dataset timeDataset(const ptwb::TrainingData &data)
{
    return {featuresOf(data), std::vector<double>(data.timeMs.begin(), data.timeMs.end())};
}

// The rows of `data` as imported measurements, ready for Store::addImport or MeasurementCsv.
inline QVector<ptwb::Measurement> measurementsOf(const ptwb::TrainingData &data)
{
    QVector<ptwb::Measurement> rows;
    for (int i = 0; i < data.size(); ++i) {
        ptwb::Measurement m;
        m.mode = data.modes[i];
        m.timeMs = data.timeMs[i];
        m.powerW = data.powerW[i];
        m.source = QStringLiteral("import");
        rows.append(m);
    }
    return rows;
}
