#pragma once

#include "deviceendpoint.h"
#include "store/workloaddefinition.h"
#include "util/expected.h"
#include "wire.h"

#include <QObject>

#include <memory>
#include <optional>

namespace ptwb {
class Store;
class SweepRunner;
}  // namespace ptwb

// Launching a profiling sweep, for `ptwb sweep` and the Sweep view alike: a request and the
// devices in, a stored plan (or the sweep to resume) and a configured runner out.
namespace ptwb::workflows {

struct SweepRequest
{
    QString workload;  // the store's workload name
    // all, random:N, als:N or grid:SPEC (SweepPlan::selectModes); unused when resuming.
    QString modeSet;
    // What the device runs; empty: the saved definition of the same name (WorkloadLibrary),
    // else the built-in workload of the same name. A definition's sweep profiles its skip + keep
    // minibatches per mode (not `minibatches`), and its plan records the whole run, so a resumed
    // sweep runs exactly that even after the definition was edited.
    std::optional<WorkloadSpec> run;
    // Profile the inference of `run` (minibatches of requests) instead of its training. Without
    // `run`, the built-in workload of the name, or of the name without kInferenceSuffix.
    bool inference = false;
    // The minibatch sizes each mode is profiled at, in this order; empty: the run's own only.
    QVector<int> batchSizes;
    int minibatches = 40;  // per mode, the first discarded
    int repeats = 1;  // measurements of each mode
    quint64 seed = 0;  // of random:N and als:N
    // The store's device name; empty: the devices' own (simulated-KIND for simulated ones).
    QString deviceName;
    // Go on with a stored sweep instead: this one, or (0) the newest of the workload on the
    // device. Only its pending modes are measured.
    bool resume = false;
    qint64 resumeSweepId = 0;
    // After this many failed modes in a row the sweep stops, resumable (Paused); 0: never.
    int stopAfterFailures = kDefaultStopAfterFailures;
    static constexpr int kDefaultStopAfterFailures = 3;
};

// A built-in workload's inference is stored under its own workload name (core's
// kInferenceSuffix): "mobilenet_v3-inference".
using ptwb::kInferenceSuffix;
QString inferenceWorkloadName(const QString &builtin);
// The built-in name of an inference workload name ("mobilenet_v3-inference" -> "mobilenet_v3");
// any other name unchanged, so an inference sweep of "mobilenet_v3" runs mobilenet_v3 too.
QString builtinOfInference(const QString &workload);

// Checks the request (BadInput errors name the InputField: Workload, Modes, Run, BatchSizes,
// Minibatches, Repeats, Resume, Target), then stores a new plan or finds the sweep to resume.
// A workload holds training or inference measurements, never both: a sweep of the other kind
// is refused before anything is stored. Returns the sweep's id.
Expected<qint64> planSweep(Store &store, const SweepRequest &request,
                           const QVector<DeviceEndpoint> &devices);

// A runner for stored sweep `sweepId` on `devices`, with the time predictions and, for als:N,
// the adaptive plan extender (SweepSetup::configure). It runs on the calling thread, which must
// own `store`; `store` must outlive it. Start it with SweepRunner::start.
// `stopAfterFailures`: SweepRequest::stopAfterFailures.
Expected<std::unique_ptr<SweepRunner>>
sweepRunner(Store &store, qint64 sweepId, const QVector<DeviceEndpoint> &devices,
            QObject *parent = nullptr,
            int stopAfterFailures = SweepRequest::kDefaultStopAfterFailures);

}  // namespace ptwb::workflows
