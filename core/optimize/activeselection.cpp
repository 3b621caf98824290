#include "optimize/activeselection.h"

#include "optimize/paretofront.h"

#include <QHash>

#include <algorithm>
#include <cmath>

namespace ptwb {

Expected<QVector<PowerMode>> ActiveSelection::next(const QString &deviceKind,
                                                   const TrainingData &measured,
                                                   const QVector<PowerMode> &candidates,
                                                   const QSet<PowerMode> &exclude, int batch,
                                                   quint64 seed)
{
    using Result = Expected<QVector<PowerMode>>;
    TrainingData training = measured;
    training.ids.clear();
    Expected<PowerModel> model =
        PowerModel::train(deviceKind, deviceKind, QStringLiteral("target"), training,
                          QStringLiteral("nn"), QStringLiteral("default"), seed);
    if (!model)
        return passOn<Result>(model);
    const ModePredictions predicted = model->predict(candidates);

    QHash<PowerMode, int> observed;
    for (int i = 0; i < measured.size(); ++i)
        observed.insert(measured.modes[i], i);
    QVector<TradeoffPoint> points;
    points.reserve(candidates.size());
    for (int row = 0; row < candidates.size(); ++row) {
        const auto known = observed.constFind(candidates[row]);
        if (known != observed.constEnd())
            points.append({row, measured.powerW[*known], measured.timeMs[*known]});
        else
            points.append({row, predicted.powerW[row], predicted.timeMs[row]});
    }
    const ParetoFront front(points);
    QVector<TradeoffPoint> fresh;
    for (const TradeoffPoint &p : front.powerTime()) {
        if (!observed.contains(candidates[p.mode]) && !exclude.contains(candidates[p.mode]))
            fresh.append(p);
    }
    // The most uncertain first: they teach the model the most about the front.
    const auto uncertainty = [&predicted](const TradeoffPoint &p) {
        const double relative = predicted.timeStdMs[p.mode] / predicted.timeMs[p.mode];
        return std::isfinite(relative) ? relative : 0.0;
    };
    std::stable_sort(fresh.begin(), fresh.end(),
                     [&uncertainty](const TradeoffPoint &a, const TradeoffPoint &b) {
                         return uncertainty(a) > uncertainty(b);
                     });
    QVector<PowerMode> chosen;
    for (int i = 0; i < std::min(batch, int(fresh.size())); ++i)
        chosen.append(candidates[fresh[i].mode]);
    return chosen;
}

}  // namespace ptwb
