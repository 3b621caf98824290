#include "optimize/modelpoints.h"

#include "predict/residualcorrection.h"

#include <algorithm>
#include <cmath>

namespace ptwb {

QList<int> sortedRows(const QSet<int> &rows)
{
    QList<int> out = rows.values();
    std::sort(out.begin(), out.end());
    return out;
}

TrainingData observedRows(const TrainingData &candidates, const QList<int> &rows)
{
    TrainingData data = candidates.subset(QVector<int>(rows.begin(), rows.end()));
    data.ids.clear();
    return data;
}

QVector<TradeoffPoint> hybridPoints(const TrainingData &candidates, const QSet<int> &known,
                                    const ModePredictions &raw, double sigmas,
                                    const ResidualCorrection *correction)
{
    ModePredictions predicted;
    if (correction) {
        QVector<int> rows;
        QVector<double> times;
        QVector<double> powers;
        for (int row : sortedRows(known)) {
            if (!std::isfinite(candidates.timeMs[row]) || !std::isfinite(candidates.powerW[row]))
                continue;  // a mode the device could not run (a device search) corrects nothing
            rows.append(row);
            times.append(candidates.timeMs[row]);
            powers.append(candidates.powerW[row]);
        }
        predicted = correction->apply(raw, rows, times, powers);
    } else {
        predicted = raw;
    }
    QVector<TradeoffPoint> points;
    points.reserve(candidates.size());
    for (int row = 0; row < candidates.size(); ++row) {
        if (known.contains(row)) {
            points.append({row, candidates.powerW[row], candidates.timeMs[row]});
        } else {
            const double power = predicted.powerW[row] + sigmas * predicted.powerStdW[row];
            points.append({row, power, predicted.timeMs[row]});
        }
    }
    return points;
}

void profileAlong(ProfilingOracle &oracle, const QVector<TradeoffPoint> &front, int count)
{
    if (front.isEmpty() || count <= 0)
        return;
    const double low = front.first().powerW;
    const double high = front.last().powerW;
    for (int k = 0; k < count; ++k) {
        const double level = low + (k + 0.5) * (high - low) / count;
        int within = -1;
        int above = -1;
        for (const TradeoffPoint &p : front) {  // ascending power
            if (oracle.profiled().contains(p.mode))
                continue;
            if (p.powerW <= level) {
                within = p.mode;
            } else {
                above = p.mode;
                break;
            }
        }
        if (within < 0 && above < 0)
            return;  // every front mode is profiled
        oracle.profile(within >= 0 ? within : above);
    }
}

}  // namespace ptwb
