#include "batch/batchchoice.h"

#include <cmath>

namespace ptwb::BatchChoice {

BatchPick pickOf(const BatchCandidates &batch, int row, const ConvergenceRelation &relation)
{
    BatchPick pick;
    pick.batch = batch.batch;
    pick.mode = batch.modes[row];
    pick.timeMs = batch.timeMs[row];
    pick.powerW = batch.powerW[row];
    pick.peakW = batch.peakAt(row);
    pick.minibatches = relation.samplesAt(batch.batch) / batch.batch;
    pick.seconds = pick.minibatches * pick.timeMs / 1000.0;
    pick.joules = pick.seconds * pick.powerW;
    return pick;
}

QVector<BatchPick> bestPerBatch(const QVector<BatchCandidates> &batches,
                                const ConvergenceRelation &relation, double powerCapW,
                                AccuracyObjective objective)
{
    QVector<BatchPick> out;
    for (const BatchCandidates &batch : batches) {
        std::optional<BatchPick> best;
        for (int row = 0; row < batch.modes.size(); ++row) {
            const BatchPick pick = pickOf(batch, row, relation);
            if (!(pick.peakW <= powerCapW) || !std::isfinite(pick.cost(objective)))
                continue;
            if (!best || pick.cost(objective) < best->cost(objective) ||
                (pick.cost(objective) == best->cost(objective) && pick.peakW < best->peakW))
                best = pick;
        }
        if (best)
            out.append(*best);
    }
    return out;
}

std::optional<BatchPick> choose(const QVector<BatchCandidates> &batches,
                                const ConvergenceRelation &relation, double powerCapW,
                                AccuracyObjective objective)
{
    std::optional<BatchPick> best;
    for (const BatchPick &pick : bestPerBatch(batches, relation, powerCapW, objective)) {
        if (!best || pick.cost(objective) < best->cost(objective) ||
            (pick.cost(objective) == best->cost(objective) && pick.peakW < best->peakW))
            best = pick;
    }
    return best;
}

}  // namespace ptwb::BatchChoice
