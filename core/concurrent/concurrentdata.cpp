#include "concurrent/concurrentdata.h"

#include "util/quartiles.h"

#include <QHash>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptwb {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Samples
{
    QVector<double> timeMs;
    QVector<double> powerW;
};

}  // namespace

bool ConcurrentData::isMeasured(int pair) const
{
    return !std::isnan(inferTimeMs[pair]) && !std::isnan(inferPowerW[pair]);
}

PairCost ConcurrentData::cost(int pair) const
{
    const int mode = modeOf(pair);
    return {trainTimeMs[mode], trainPowerW[mode], inferTimeMs[pair], inferPowerW[pair],
            batchOf(pair)};
}

TrainingData ConcurrentData::training() const
{
    TrainingData data;
    data.modes = modes;
    data.timeMs = trainTimeMs;
    data.powerW = trainPowerW;
    return data;
}

TrainingData ConcurrentData::inference(int batchIndex) const
{
    TrainingData data;
    data.modes = modes;
    for (int mode = 0; mode < modes.size(); ++mode) {
        data.timeMs.append(inferTimeMs[pairOf(mode, batchIndex)]);
        data.powerW.append(inferPowerW[pairOf(mode, batchIndex)]);
    }
    return data;
}

Expected<ConcurrentData> ConcurrentData::join(const QVector<Measurement> &training,
                                              const QVector<Measurement> &inference,
                                              const QString &trainingName,
                                              const QString &inferenceName,
                                              InputField trainingField, InputField inferenceField)
{
    using Result = Expected<ConcurrentData>;
    QHash<PowerMode, Samples> train;
    for (const Measurement &m : training) {
        if (m.inferenceBatch > 0)
            return Result::badInput(
                trainingField,
                QStringLiteral("%1 holds inference measurements (an inference batch size per row); "
                               "expected training measurements")
                    .arg(trainingName));
        train[m.mode].timeMs.append(m.timeMs);
        train[m.mode].powerW.append(m.powerW);
    }
    if (train.isEmpty())
        return Result::badInput(trainingField,
                                QStringLiteral("%1 holds no measurements").arg(trainingName));

    QVector<PowerMode> order;
    QHash<PowerMode, QHash<int, Samples>> infer;
    QVector<int> batches;
    for (const Measurement &m : inference) {
        if (m.inferenceBatch <= 0)
            return Result::badInput(
                inferenceField,
                QStringLiteral("%1 holds training measurements (no inference batch size); "
                               "expected inference measurements with a 'bs' column")
                    .arg(inferenceName));
        if (!train.contains(m.mode))
            continue;  // only the modes both workloads were measured on are candidates
        if (!infer.contains(m.mode))
            order.append(m.mode);
        Samples &samples = infer[m.mode][m.inferenceBatch];
        samples.timeMs.append(m.timeMs);
        samples.powerW.append(m.powerW);
        if (!batches.contains(m.inferenceBatch))
            batches.append(m.inferenceBatch);
    }
    if (order.isEmpty())
        return Result::badInput(
            inferenceField,
            QStringLiteral("%1 and %2 have no power mode in common: nothing to choose from")
                .arg(inferenceName, trainingName));
    std::sort(batches.begin(), batches.end());

    ConcurrentData data;
    data.modes = order;
    data.batches = batches;
    for (const PowerMode &mode : order) {
        const Samples &t = train[mode];
        data.trainTimeMs.append(Quartiles::of(t.timeMs).median);
        data.trainPowerW.append(Quartiles::of(t.powerW).median);
        const QHash<int, Samples> &byBatch = infer[mode];
        for (int batch : batches) {
            const auto it = byBatch.find(batch);
            data.inferTimeMs.append(it == byBatch.end() ? kNaN : Quartiles::of(it->timeMs).median);
            data.inferPowerW.append(it == byBatch.end() ? kNaN : Quartiles::of(it->powerW).median);
        }
    }
    return data;
}

}  // namespace ptwb
