#pragma once

#include "predict/powermodel.h"
#include "util/expected.h"

#include <QSet>
#include <QVector>

namespace ptwb {

// Which modes active learning profiles next (our reading of Fulcrum's active learning,
// docs/optimization.md): an NN trained on what has been measured predicts every candidate; on
// the front built from observed values where known and predictions elsewhere, the modes not
// measured yet are the ones that could still change the choice. The most uncertain of them
// (relative spread of the ensemble's time predictions) go first. Used by the `als` strategy in
// evaluations and by adaptive sweeps (`--modes als:N`).
class ActiveSelection
{
public:
    // Up to `batch` modes from `candidates`, none of them in `measured` or `exclude`; empty when
    // the front holds no such mode (active learning has converged).
    static Expected<QVector<PowerMode>> next(const QString &deviceKind,
                                             const TrainingData &measured,
                                             const QVector<PowerMode> &candidates,
                                             const QSet<PowerMode> &exclude, int batch,
                                             quint64 seed);
};

}  // namespace ptwb
