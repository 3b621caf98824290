#include "optimize/modelstrategies.h"

#include "optimize/activeselection.h"
#include "optimize/modelpoints.h"
#include "predict/residualcorrection.h"

#include <algorithm>
#include <cmath>

namespace ptwb {

QString ModelStrategy::name() const
{
    switch (m_kind) {
    case Kind::Scratch:
        return QStringLiteral("nn");
    case Kind::Transfer:
        return QStringLiteral("pt");
    case Kind::SafeTransfer:
        return QStringLiteral("safe");
    }
    return {};
}

Status ModelStrategy::profileGuided(ProfilingOracle &oracle, const StrategyContext &context,
                                    std::mt19937_64 &rng)
{
    const int total = context.samples;
    m_correction.emplace(oracle.candidates().modes);
    const ModePredictions reference = context.reference->predict(oracle.candidates().modes);
    profileAlong(
        oracle,
        ParetoFront(hybridPoints(oracle.candidates(), oracle.profiled(), reference, 0)).powerTime(),
        int(total * kReferenceFrontShare));
    const int firstStage = std::max(3, int(total * (kReferenceFrontShare + kRandomShare)));
    for (int row : randomRows(oracle.candidates().size(), oracle.candidates().size(), rng)) {
        if (oracle.profiledCount() >= firstStage)
            break;
        oracle.profile(row);
    }
    for (int round = 0;; ++round) {
        Expected<PowerModel> model = context.reference->transfer(
            context.deviceKind, context.deviceKind, QStringLiteral("target"),
            observedRows(oracle.candidates(), sortedRows(oracle.profiled())), context.seed, true);
        if (!model)
            return passOn<Status>(model);
        m_model.emplace(std::move(model).value());
        const int remaining = total - oracle.profiledCount();
        if (round == kActiveRounds || remaining <= 0)
            return {};
        const ModePredictions predicted = m_model->predict(oracle.candidates().modes);
        const int batch = (remaining + (kActiveRounds - round) - 1) / (kActiveRounds - round);
        profileAlong(oracle,
                     ParetoFront(hybridPoints(oracle.candidates(), oracle.profiled(), predicted, 0,
                                              correctionOrNull()))
                         .powerTime(),
                     batch);
    }
}

Status ModelStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &context)
{
    std::mt19937_64 rng(context.seed);
    if (m_kind == Kind::Scratch) {
        for (int row : randomRows(oracle.candidates().size(), context.samples, rng))
            oracle.profile(row);
        Expected<PowerModel> model =
            PowerModel::train(context.deviceKind, context.deviceKind, QStringLiteral("target"),
                              observedRows(oracle.candidates(), sortedRows(oracle.profiled())),
                              QStringLiteral("nn"), QStringLiteral("default"), context.seed);
        if (!model)
            return passOn<Status>(model);
        m_model.emplace(std::move(model).value());
    } else {
        if (!context.reference)
            return Status::failure(QStringLiteral("%1 needs a reference model").arg(name()));
        if (Status status = profileGuided(oracle, context, rng); !status)
            return status;
    }
    const ModePredictions predicted = m_model->predict(oracle.candidates().modes);
    m_front = ParetoFront(hybridPoints(oracle.candidates(), oracle.profiled(), predicted,
                                       m_kind == Kind::SafeTransfer ? kSafetySigmas : 0,
                                       correctionOrNull()));
    return {};
}

Pick ModelStrategy::choose(double powerBudgetW, ProfilingOracle &)
{
    return pickFrom(m_front.fastestWithin(powerBudgetW));
}

Status ActiveLearningStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &context)
{
    std::mt19937_64 rng(context.seed);
    for (int row : randomRows(oracle.candidates().size(), kInitialModes, rng))
        oracle.profile(row);
    while (oracle.profiledCount() < kMaxModes) {
        const QList<int> rows = sortedRows(oracle.profiled());
        TrainingData measured = oracle.candidates().subset(QVector<int>(rows.begin(), rows.end()));
        const int room = std::min(kBatch, kMaxModes - oracle.profiledCount());
        Expected<QVector<PowerMode>> next =
            ActiveSelection::next(context.deviceKind, measured, oracle.candidates().modes, {}, room,
                                  context.seed + rows.size());
        if (!next)
            return passOn<Status>(next);
        if (next->isEmpty())
            break;
        for (const PowerMode &mode : *next)
            oracle.profile(oracle.rowOf(mode));
    }
    QVector<TradeoffPoint> observed;
    for (int row : sortedRows(oracle.profiled()))
        observed.append({row, oracle.candidates().powerW[row], oracle.candidates().timeMs[row]});
    m_front = ParetoFront(observed);
    return {};
}

Pick ActiveLearningStrategy::choose(double powerBudgetW, ProfilingOracle &)
{
    return pickFrom(m_front.fastestWithin(powerBudgetW));
}

}  // namespace ptwb
