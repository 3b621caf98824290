#pragma once

#include "batch/batchchoice.h"
#include "batch/batchevaluation.h"
#include "util/expected.h"

#include <QStringList>

#include <functional>
#include <memory>

namespace ptwb {
class PowerModel;
class Store;
}  // namespace ptwb

// Co-selecting training batch size and power mode from the store, for `ptwb recommend
// --objective time-to-accuracy|energy-to-accuracy` and the window alike.
namespace ptwb::workflows {

// A workload's candidates at each of its measured training batch sizes, and its convergence
// relation: what BatchChoice chooses from.
struct BatchSpace
{
    QString device;
    QString deviceKind;
    QString workload;
    ConvergenceRelation relation;
    QVector<BatchCandidates> batches;  // ascending batch size
    // Per batch, where its numbers come from: "model 12 (pt) + 50 measured modes", or
    // "50 measured modes (no model of resnet18@32)".
    QStringList sources;
};

// Every training batch size `workload` was measured at on `device` ("": the one it was measured
// on): its measured modes, and, unless `observedOnly`, every mode of the device predicted by the
// newest model of the batch's view (NAME@B), measured values kept where measured. Bad input
// when the workload has no training measurements or no convergence relation (the error says
// how to store one).
Expected<BatchSpace> loadBatchSpace(Store &store, const QString &workload, const QString &device,
                                    bool observedOnly);

// What `ptwb evaluate-batch` scores against: every batch size of `workload` on `device` as
// measured (median time and power per mode, the median peak per mode where measured, else the
// batch's peak ratio), and the stored samples-to-accuracy relation taken as true.
Expected<BatchTruth> loadBatchTruth(Store &store, const QString &workload, const QString &device);

// A reference model trained on a stored workload (a BatchView such as resnet18@16 too), the
// default configuration, for the evaluation's transfers.
Expected<std::shared_ptr<const PowerModel>> trainReference(Store &store, const QString &workload,
                                                           const QString &device, quint64 seed);

// One batch-size evaluation from the store: `ptwb evaluate-batch` and Compare's batch study.
struct BatchEvaluationRequest
{
    QString workload;  // measured at every mode of its batch sizes, with its relation (the truth)
    QString device;  // "": the one it was measured on
    QString referenceWorkload;  // for pt (a BatchView such as resnet18@16); "" without pt
    QString proxySamplesFile;  // a convergence CSV; "": the stored relation
    BatchEvaluationOptions options;  // caps, objective, strategies, samples, repeats, seed
};

struct BatchEvaluationOutcome
{
    QVector<BatchStrategyResult> results;
    int batchSizes = 0;
    QString samplesProvenance;  // the true relation's: "simulated" must be said
    double seconds = 0;
};

// Loads the truth, reads the proxy relation, trains the reference (only when pt is asked for:
// bad input about the Reference field when none is named) and runs BatchEvaluator. Blocking:
// call it off the GUI thread; `cancelled` is polled between repeats.
Expected<BatchEvaluationOutcome> runBatchEvaluation(Store &store,
                                                    const BatchEvaluationRequest &request,
                                                    const std::function<bool()> &cancelled = {});

}  // namespace ptwb::workflows
