#pragma once

#include "optimize/budgetsearch.h"
#include "store/measurement.h"
#include "store/sweepstore.h"
#include "util/expected.h"

#include <QHash>
#include <QStringList>

namespace ptwb {

class Store;
class SweepRunner;

// What `ptwb sweep` and the window's Sweep panel share before a runner starts: which workloads
// the agent runs by name, storing a new plan, and what a runner needs from the store to
// estimate time left and to grow an adaptive plan.
class SweepSetup
{
public:
    // The built-in workloads the agent (and the simulator) know by name.
    static const QStringList &builtinWorkloads();

    // Every mode of a device kind (empty for an unknown kind).
    static QVector<PowerMode> allModes(const QString &deviceKind);

    // Chooses plan.modeSet's modes from the device kind's space (plan.modes is ignored), orders
    // them high to low and stores the plan before anything is measured. Returns the sweep id.
    static Expected<qint64> create(Store &store, SweepPlan plan);

    // The stored measurement of each done item of `record`, by mode.
    static Expected<QHash<PowerMode, Measurement>> sweepMeasurements(Store &store,
                                                                     const SweepRecord &record);

    // Where a search sweep (mode set search:STRATEGY:WATTS) stands, from its own measurements
    // (`measured`: sweepMeasurements of `record`): the next mode to profile, or the answer.
    // BadInput for a sweep that is not a search.
    static Expected<SearchStep> searchStep(Store &store, const SweepRecord &record,
                                           const QHash<PowerMode, Measurement> &measured);
    static Expected<SearchStep> searchStep(Store &store, const SweepRecord &record);

    // Gives the runner of `record` its time predictions (from the workload's newest model, when
    // the store has one) and, for an als:N plan, the active-learning plan extender. The runner
    // must run on the thread that owns `store`, and `store` must outlive it.
    static void configure(SweepRunner &runner, Store &store, const SweepRecord &record);
};

}  // namespace ptwb
