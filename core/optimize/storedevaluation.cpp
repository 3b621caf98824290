#include "optimize/storedevaluation.h"

#include "predict/modelfit.h"
#include "store/store.h"

namespace ptwb {

Expected<QVector<StrategyMetrics>> StoredEvaluation::run(const Callbacks &callbacks) const
{
    using Result = Expected<QVector<StrategyMetrics>>;
    const auto log = [&callbacks](const QString &line) {
        if (callbacks.log)
            callbacks.log(line);
    };
    Expected<std::unique_ptr<Store>> store = Store::open(m_params.databasePath);
    if (!store)
        return Result::failure(store.error());
    const Expected<WorkloadData> candidates =
        WorkloadData::load(**store, m_params.targetWorkload, m_params.targetDevice);
    if (!candidates)
        return passOn<Result>(candidates);

    TrainingData referenceData;
    QString referenceKind = candidates->kind;
    std::shared_ptr<const PowerModel> referenceModel;
    if (m_params.options.needsReference()) {
        const Expected<WorkloadData> loaded =
            WorkloadData::load(**store, m_params.referenceWorkload, m_params.referenceDevice);
        if (!loaded)
            return passOn<Result>(loaded);
        referenceData = loaded->data;
        referenceKind = loaded->kind;
        // A stored reference model of the project's configuration saves training one; one of
        // another configuration would not be the model the Evaluator trains, so it is not used.
        const Expected<ModelRecord> stored = (*store)->latestModel(
            referenceKind, m_params.referenceWorkload, QStringLiteral("reference"));
        if (stored && stored->config == QLatin1String("default")) {
            if (Expected<PowerModel> model = PowerModel::fromRecord(*stored)) {
                referenceModel = std::make_shared<PowerModel>(std::move(model).value());
                log(QStringLiteral("Using stored reference model %1 of %2")
                        .arg(stored->id)
                        .arg(m_params.referenceWorkload));
            }
        }
        if (!referenceModel)
            log(QStringLiteral("Training a reference model on %1 for pt and safe…")
                    .arg(m_params.referenceWorkload));
    }

    Evaluator evaluator(referenceData, candidates->data, candidates->kind, m_params.options);
    evaluator.setReferenceKind(referenceKind);
    evaluator.setReferenceModel(referenceModel);
    evaluator.setCancelled(callbacks.cancelled);
    evaluator.setProgress(callbacks.progress);
    return evaluator.run(callbacks.result, callbacks.log);
}

}  // namespace ptwb
