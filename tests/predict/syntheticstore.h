#pragma once

#include "store/store.h"
#include "synthetic.h"

#include <QTemporaryDir>
#include <QTest>

// `count` synthetic modes (synthetic.h) and MAXN, which the maxn strategy needs among its
// candidates: the last mode replaced by it when it was not drawn.
inline ptwb::TrainingData syntheticDataWithMaxn(int count, quint64 seed, double gpuWeight = 0.7)
{
    ptwb::TrainingData data = syntheticData(count, seed, gpuWeight);
    const ptwb::PowerMode maxn =
        ptwb::DeviceSpec::builtin(QStringLiteral("orin-agx")).value().maxMode();
    if (!data.modes.contains(maxn)) {
        data.modes.last() = maxn;
        data.timeMs.last() = syntheticTime(maxn, gpuWeight);
        data.powerW.last() = syntheticPower(maxn, gpuWeight);
    }
    return data;
}

// Stores `count` synthetic measurements of a workload (with MAXN) on the AGX Orin
// "orin-agx", as an import with a made-up hash: a store in milliseconds, no shared data needed.
inline bool addSyntheticWorkload(ptwb::Store &store, const QString &workload, int count,
                                 quint64 seed, double gpuWeight = 0.7)
{
    const ptwb::TrainingData data = syntheticDataWithMaxn(count, seed, gpuWeight);
    const QVector<ptwb::Measurement> rows = measurementsOf(data);
    const auto record =
        store.addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), workload,
                        workload + QStringLiteral(".csv"),
                        QStringLiteral("%1-%2-%3").arg(workload).arg(count).arg(seed), rows);
    return record.ok();
}

// Stores `count` synthetic measurements of a workload measured on a device of another kind
// (no MAXN added), under the device name `kind`.
inline bool addSyntheticWorkloadOn(ptwb::Store &store, const QString &kind, const QString &workload,
                                   int count, quint64 seed, double gpuWeight = 0.5)
{
    const ptwb::TrainingData data = syntheticDataOf(kind, count, seed, gpuWeight);
    const QVector<ptwb::Measurement> rows = measurementsOf(data);
    return store
        .addImport(kind, kind, workload, workload + QStringLiteral(".csv"),
                   QStringLiteral("%1-%2-%3-%4").arg(kind, workload).arg(count).arg(seed), rows)
        .ok();
}

// A store file in `dir` with a reference workload "resnet" (300 modes) and a target "mobilenet"
// (`targetModes` modes), both of a known synthetic law; empty when it cannot be made.
inline QString makeSyntheticStore(const QTemporaryDir &dir, int targetModes)
{
    const QString path = dir.filePath(QStringLiteral("store.sqlite"));
    auto store = ptwb::Store::open(path);
    if (!store)
        return {};
    if (!addSyntheticWorkload(**store, QStringLiteral("resnet"), 300, 1, 0.7) ||
        !addSyntheticWorkload(**store, QStringLiteral("mobilenet"), targetModes, 2, 0.5))
        return {};
    return path;
}
