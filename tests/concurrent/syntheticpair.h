#pragma once

#include "concurrent/concurrentdata.h"
#include "predict/synthetic.h"
#include "store/store.h"

// The concurrent study's grid on AGX Orin (cores 4/8/12, 7 CPU, 7 GPU and 3 memory clocks: 441
// modes) with a synthetic training workload and a synthetic inference workload at batch sizes
// 1, 4, 16, 32, 64: a fixed cost per inference minibatch plus a cost per request, both falling
// with the clocks; power rising with the clocks and, saturating, with the batch.
inline QVector<ptwb::PowerMode> fulcrumGrid()
{
    const qint64 cpus[] = {422400, 729600, 1036800, 1344000, 1651200, 1958400, 2201600};
    const qint64 gpus[] = {114750000, 318750000,  522750000, 726750000,
                           930750000, 1134750000, 1300500000};
    const qint64 mems[] = {665600000, 2133000000, 3199000000};
    QVector<ptwb::PowerMode> modes;
    for (int cores : {4, 8, 12})
        for (qint64 cpu : cpus)
            for (qint64 gpu : gpus)
                for (qint64 mem : mems)
                    modes.append({cores, cpu, gpu, mem});
    return modes;
}

inline QVector<ptwb::Measurement> syntheticTraining(double gpuWeight = 0.7)
{
    QVector<ptwb::Measurement> rows;
    for (const ptwb::PowerMode &mode : fulcrumGrid()) {
        ptwb::Measurement m;
        m.mode = mode;
        m.timeMs = 0.3 * syntheticTime(mode, gpuWeight);
        m.powerW = syntheticPower(mode, gpuWeight);
        rows.append(m);
    }
    return rows;
}

inline QVector<ptwb::Measurement> syntheticInference(double perRequest = 1.0)
{
    QVector<ptwb::Measurement> rows;
    for (const ptwb::PowerMode &mode : fulcrumGrid()) {
        for (int batch : {1, 4, 16, 32, 64}) {
            ptwb::Measurement m;
            m.mode = mode;
            m.inferenceBatch = batch;
            m.timeMs = 0.04 * syntheticTime(mode, 0.3) +
                perRequest * batch * 0.0086 * syntheticTime(mode, 0.9);
            m.powerW = syntheticPower(mode, 0.5) * (1.0 + 0.3 * (1.0 - 1.0 / std::sqrt(batch)));
            rows.append(m);
        }
    }
    return rows;
}

inline ptwb::ConcurrentData syntheticPair(double gpuWeight = 0.7, double perRequest = 1.0)
{
    return ptwb::ConcurrentData::join(syntheticTraining(gpuWeight), syntheticInference(perRequest),
                                      QStringLiteral("train"), QStringLiteral("infer"))
        .value();
}

// The synthetic pair in a store as `ptwb import` would leave it: device `agx` (orin-agx), the
// training workload as `train` and the inference workload as `infer`.
inline bool storeSyntheticPair(const QString &path, const QString &train, const QString &infer)
{
    auto store = ptwb::Store::open(path);
    if (!store)
        return false;
    return (*store)
               ->addImport(QStringLiteral("agx"), QStringLiteral("orin-agx"), train,
                           QStringLiteral("train.csv"), QStringLiteral("train"),
                           syntheticTraining())
               .ok() &&
        (*store)
            ->addImport(QStringLiteral("agx"), QStringLiteral("orin-agx"), infer,
                        QStringLiteral("infer.csv"), QStringLiteral("infer"), syntheticInference())
            .ok();
}
