#include "predict/modelfit.h"

#include "store/store.h"

namespace ptwb {

Expected<WorkloadData> WorkloadData::load(Store &store, const QString &workload,
                                          const QString &device)
{
    const Expected<QString> resolved = store.deviceOfWorkload(workload, device);
    if (!resolved)
        return passOn<Expected<WorkloadData>>(resolved);
    const Expected<QVector<Measurement>> rows = store.measurements(*resolved, workload);
    if (!rows)
        return Expected<WorkloadData>::failure(rows.error());
    Expected<TrainingData> data = TrainingData::fromMeasurements(
        *rows, QStringLiteral("workload '%1' on %2").arg(workload, *resolved));
    if (!data)
        return passOn<Expected<WorkloadData>>(data);
    return WorkloadData {*resolved, store.deviceKind(*resolved).value_or(QString()),
                         std::move(data).value()};
}

ModelFit ModelFit::of(const PowerModel &model, const TrainingData &observed)
{
    ModelFit fit;
    fit.observed = observed;
    fit.predicted = model.predict(observed.modes);
    fit.timeMape = meanAbsolutePercentageError(fit.predicted.timeMs, observed.timeMs);
    fit.powerMape = meanAbsolutePercentageError(fit.predicted.powerW, observed.powerW);
    return fit;
}

QJsonObject ModelFit::trainingMetrics(double seconds) const
{
    return {{QStringLiteral("modes"), observed.size()},
            {QStringLiteral("time_mape_train"), timeMape},
            {QStringLiteral("power_mape_train"), powerMape},
            {QStringLiteral("seconds"), seconds}};
}

}  // namespace ptwb
