#pragma once

#include "deviceendpoint.h"
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
    // What the device runs; empty: the built-in workload of the same name.
    std::optional<WorkloadSpec> run;
    int minibatches = 40;  // per mode, the first discarded
    int repeats = 1;  // measurements of each mode
    quint64 seed = 0;  // of random:N and als:N
    // The store's device name; empty: the devices' own (simulated-KIND for simulated ones).
    QString deviceName;
    // Go on with a stored sweep instead: this one, or (0) the newest of the workload on the
    // device. Only its pending modes are measured.
    bool resume = false;
    qint64 resumeSweepId = 0;
};

// Checks the request (BadInput errors name the InputField: Workload, Modes, Run, Minibatches,
// Repeats, Resume, Target), then stores a new plan or finds the sweep to resume. Returns the
// sweep's id.
Expected<qint64> planSweep(Store &store, const SweepRequest &request,
                           const QVector<DeviceEndpoint> &devices);

// A runner for stored sweep `sweepId` on `devices`, with the time predictions and, for als:N,
// the adaptive plan extender (SweepSetup::configure). It runs on the calling thread, which must
// own `store`; `store` must outlive it. Start it with SweepRunner::start.
Expected<std::unique_ptr<SweepRunner>> sweepRunner(Store &store, qint64 sweepId,
                                                   const QVector<DeviceEndpoint> &devices,
                                                   QObject *parent = nullptr);

}  // namespace ptwb::workflows
