#include "optimize/transfersearch.h"

#include "optimize/modelpoints.h"
#include "optimize/searchstrategies.h"
#include "predict/residualcorrection.h"

#include <cmath>

namespace ptwb {

Status TransferSearchStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &context)
{
    if (!context.reference)
        return Status::failure(QStringLiteral("pts needs a reference model"), ErrorKind::BadInput);
    m_context = context;
    const TrainingData &candidates = oracle.candidates();
    const ModePredictions reference = context.reference->predict(candidates.modes);
    // As pt begins: most over the reference's front (by power level), the rest at random.
    profileAlong(oracle, ParetoFront(hybridPoints(candidates, {}, reference, 0)).powerTime(),
                 kShared * 5 / 8);
    std::mt19937_64 rng(context.seed);
    for (int row : randomRows(candidates.size(), candidates.size(), rng)) {
        if (oracle.profiledCount() >= kShared)
            break;
        oracle.profile(row);
    }
    m_shared = oracle.profiled();
    return {};
}

Pick TransferSearchStrategy::choose(double powerBudgetW, ProfilingOracle &oracle)
{
    if (!m_context.reference)
        return {-1, false};  // not prepared
    const TrainingData &candidates = oracle.candidates();
    const ResidualCorrection correction(candidates.modes);
    QSet<int> known = m_shared;
    for (int own = 0; own <= kMaxOwn; ++own) {
        // A mode the device refused (infinite power, on a device) is known but fits nothing.
        QList<int> usable;
        for (int row : sortedRows(known)) {
            if (std::isfinite(candidates.powerW[row]) && std::isfinite(candidates.timeMs[row]))
                usable.append(row);
        }
        Expected<PowerModel> model = m_context.reference->transfer(
            m_context.deviceKind, m_context.deviceKind, QStringLiteral("target"),
            observedRows(candidates, usable), m_context.seed, true);
        if (!model)
            break;  // too few modes to transfer: answer from what was measured
        const ModePredictions predicted = model->predict(candidates.modes);
        const Pick pick =
            pickFrom(ParetoFront(hybridPoints(candidates, known, predicted, 0, &correction))
                         .fastestWithin(powerBudgetW));
        if (pick.row < 0 || known.contains(pick.row) || own == kMaxOwn)
            break;
        oracle.profile(pick.row);
        known.insert(pick.row);
    }
    QVector<TradeoffPoint> measured;
    for (int row : sortedRows(known))
        measured.append({row, candidates.powerW[row], candidates.timeMs[row]});
    return bestObserved(measured, powerBudgetW);
}

}  // namespace ptwb
