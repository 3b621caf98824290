#pragma once

#include "deviceendpoint.h"
#include "optimize/budgetsearch.h"
#include "store/measurement.h"
#include "sweep/sweepplan.h"
#include "sweeplaunch.h"
#include "util/expected.h"

#include <optional>

namespace ptwb {
class Store;
}  // namespace ptwb

// A search for one power budget on the device (gmd or bs, one profiled mode at a time), for
// `ptwb search` and the Explore view's "Find on device…" alike. A search is a sweep whose mode
// set is search:STRATEGY:WATTS (docs/sweeps.md); these functions plan it and read its answer.
namespace ptwb::workflows {

struct SearchRequest
{
    QString workload;
    QString strategy = QStringLiteral("gmd");
    double powerBudgetW = 0;  // exactly one of the two budgets, above 0
    double timeBudgetMs = 0;
    int minibatches = 40;
    std::optional<WorkloadSpec> run;  // empty: the built-in workload of the same name
    // pts: the reference it transfers, by workload (its newest reference model on the device's
    // kind) or by the transferred model whose reference it is (the window's shown model).
    QString referenceWorkload;
    qint64 transferredModelId = 0;
    QString deviceName;  // empty: the device's own
    bool resume = false;  // go on with the newest search of the workload on the device
};

// Checks the request (BadInput names Strategies, Budgets, Reference, ...) and stores the
// search's plan, or finds the search to resume (BadInput when the newest sweep is not a search).
// Returns its id.
Expected<qint64> planSearch(Store &store, const SearchRequest &request,
                            const QVector<DeviceEndpoint> &devices);

struct SearchOutcome
{
    SearchGoal goal;
    PowerMode mode;  // the fastest fitting mode profiled, else the lowest-power one
    bool fits = false;
    int profiled = 0;
    std::optional<Measurement> measured;  // of `mode`
};

// The answer of a finished search; Failed (saying so) while it still has modes to profile.
Expected<SearchOutcome> searchOutcome(Store &store, qint64 sweepId);

// The reference model pts transfers for `request` on a device of `kind`: BadInput (Reference)
// when there is none.
Expected<qint64> searchReference(Store &store, const SearchRequest &request, const QString &kind);

}  // namespace ptwb::workflows
