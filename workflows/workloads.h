#pragma once

#include "deviceendpoint.h"
#include "onecallrun.h"
#include "store/workloaddefinition.h"
#include "store/workloadoutput.h"
#include "util/expected.h"
#include "wire.h"

#include <QObject>
#include <QVector>

#include <memory>
#include <optional>

namespace ptwb {
class DeviceCall;
class DeviceClient;
class Store;
}  // namespace ptwb

// The researcher's own workloads (issue 20), for the Workloads dialog and `ptwb workload` alike:
// the saved definitions beside the built-ins, and "Try before you sweep": one run of a workload
// on a device in its current mode, with what it printed and what was recognised as minibatches.
namespace ptwb::workflows {

struct WorkloadEntry
{
    QString name;
    bool builtin = false;  // read-only, no definition
    std::optional<WorkloadDefinition> definition;
};

// Built-ins first (read-only), then definitions by name; a definition of another device kind
// is left out when `deviceKind` is given (one for any device is always listed).
Expected<QVector<WorkloadEntry>> listWorkloads(Store &store, const QString &deviceKind = {});
// Errors are BadInput about InputField::Workload: "workload NAME: FIELD: what was expected"
// (WorkloadDefinition::problem), a name taken, a built-in's name, or no such definition.
Status addWorkload(Store &store, const WorkloadDefinition &definition);
Status updateWorkload(Store &store, const QString &oldName, const WorkloadDefinition &definition);
Status removeWorkload(Store &store, const QString &name);
Expected<WorkloadDefinition> duplicateWorkload(Store &store, const QString &name);
// The definition of that name, or nothing.
Expected<std::optional<WorkloadDefinition>> findWorkload(Store &store, const QString &name);

using OutputLine = WorkloadOutputLine;

struct WorkloadTestReport
{
    QVector<OutputLine> lines;  // the last ones (40 from the agent), sanitised
    int minibatches = 0;  // recognised and measured (the skipped ones not counted)
    std::optional<double> medianMs;
    std::optional<double> medianW;
    std::optional<int> exitStatus;  // none: still running when the test ended
    QString reason;  // why nothing was recognised, or why the workload failed; empty: fine
    double seconds = 0;  // device seconds it ran

    bool recognised() const { return minibatches > 0 && reason.isEmpty(); }
    // A test_workload result (docs/device-protocol.md).
    static Expected<WorkloadTestReport> fromJson(const QJsonObject &result);
};

// One test run of a workload on a device: connects, runs test_workload in the current mode (the
// mode is not changed) and finishes once, with the report or why there is none (the device could
// not be reached, the request was refused, cancelled). A workload that fails is a report with a
// reason, not an error. Event-driven on the thread that creates it, which needs an event loop.
class WorkloadTest : public OneCallRun
{
    Q_OBJECT

public:
    static constexpr int kMaxSeconds = 600;
    // Minibatches measured beyond the skipped ones before the test stops early.
    static constexpr int kTestMinibatches = 20;

Q_SIGNALS:
    void minibatch(int index, double ms);
    void finished(const ptwb::Expected<ptwb::workflows::WorkloadTestReport> &report);

private:
    friend std::unique_ptr<WorkloadTest> startWorkloadTest(const DeviceEndpoint &,
                                                           const WorkloadSpec &, int, QObject *);
    WorkloadTest(DeviceEndpoint device, WorkloadSpec workload, int seconds, QObject *parent);
    void begin();
    DeviceCall *makeCall(DeviceClient &client) override;
    void succeed(const QJsonObject &result) override;
    void fail(const Status &why) override;
    void finish(const Expected<WorkloadTestReport> &report);

    WorkloadSpec m_workload;
    int m_seconds = 30;
};

// Starts a test of `workload` (WorkloadSpec::fromDefinition of a definition) for up to
// `seconds` (device seconds, 1..600). A bad request finishes at once (on the next turn of the
// event loop) with BadInput (about InputField::Run for the workload).
std::unique_ptr<WorkloadTest> startWorkloadTest(const DeviceEndpoint &device,
                                                const WorkloadSpec &workload, int seconds,
                                                QObject *parent = nullptr);

}  // namespace ptwb::workflows
