#pragma once

#include "concurrent/concurrentproblem.h"
#include "concurrentrun.h"
#include "deviceendpoint.h"
#include "modes/powermode.h"
#include "util/expected.h"

#include <QObject>

#include <functional>
#include <memory>
#include <optional>

namespace ptwb {
class ConcurrentSpace;
class DeviceCall;
class DeviceClient;
}  // namespace ptwb

// A verification run of concurrent training and inference on the device (Fulcrum, issue 16), for
// `ptwb verify-concurrent` and Explore's concurrent mode alike: apply a mode with the device-side
// revert, have the agent serve synthetic requests at λ in batches of b and train in between
// (run_concurrent), stream the measured latency percentiles, training throughput and power, and
// put them beside the prediction. The device is left in its previous mode afterwards (unless
// asked to keep the mode after a good run), and on error or cancel; when it cannot be reached
// for that, its armed revert restores the previous mode by itself.
namespace ptwb::workflows {

struct VerificationRequest
{
    QString trainWorkload;  // built-in workload names (resnet18, mobilenet_v3)
    QString inferWorkload;
    int trainBatch = 16;
    int inferBatch = 16;  // b
    double arrivalRate = 0;  // λ, requests per second
    double durationS = 60;  // device seconds of arrivals, 1..3000
    // Applied for the run under an armed revert; none: the run uses the device's current mode.
    std::optional<PowerMode> mode;
    // Keep `mode` (confirm it) after a good run instead of restoring the previous mode.
    bool keepMode = false;
    // The budgets to judge against (0: none) and the predicted cost of (mode, b); arrivalRate is
    // taken from above.
    ConcurrentProblem problem;
    std::optional<PairCost> predicted;
};

// Checks the request: BadInput about Training, Inference (names, batch sizes 1..4096),
// ArrivalRate ((0, 10000]), Run (duration, at most 200,000 requests), Mode.
Status checkVerification(const VerificationRequest &request);

// The predicted cost of (mode, b) in `space` (measured values where measured); BadInput about
// Mode or Inference when the space has no such pair.
Expected<PairCost> predictedCost(const ConcurrentSpace &space, const PowerMode &mode, int batch);

struct VerificationOutcome
{
    ConcurrentMeasurement measured;
    // The formulas with the run's own measured tT and tI (always), and with the predicted cost.
    ConcurrentOutcome fromMeasuredTimes;
    std::optional<ConcurrentOutcome> predicted;
    PowerMode previousMode;  // what the device ran before (when a mode was applied)
    bool modeKept = false;  // the device still runs the verified mode
};

// The formulas for `problem` with tT, tI (and the powers) as measured by a run.
ConcurrentOutcome formulasFromMeasured(const ConcurrentProblem &problem,
                                       const ConcurrentMeasurement &measured, int batch);

// A measured value of a run against its budget: the latency by the p99 of the requests (s), the
// power by its median (W). Not judged without a budget (0) or a measurement.
struct BudgetCheck
{
    double budget = 0;
    std::optional<double> measured;

    bool judged() const { return budget > 0 && measured.has_value(); }
    bool met() const { return judged() && *measured <= budget; }
    double over() const { return judged() ? *measured - budget : 0.0; }
};
BudgetCheck latencyCheck(const ConcurrentProblem &problem, const ConcurrentMeasurement &measured);
BudgetCheck powerCheck(const ConcurrentProblem &problem, const ConcurrentMeasurement &measured);

struct VerificationCallbacks
{
    std::function<void(const QString &)> phase;  // "applying 12c/...", "warming up", ...
    std::function<void(const ConcurrentMeasurement &)> progress;  // at most ~1/s
    // Exactly once, after the device is back in its safe state (or left to its revert).
    std::function<void(const Expected<VerificationOutcome> &)> finished;
};

// One verification run, event-driven on the thread that creates it (which needs an event loop).
class VerificationRun : public QObject
{
    Q_OBJECT

public:
    ~VerificationRun() override;
    // Stops the run on the device, restores the previous mode, then finishes with a failure
    // ("cancelled"). Does nothing once finished.
    void cancel();
    bool isFinished() const { return m_finished; }

private:
    friend std::unique_ptr<VerificationRun> startVerification(const DeviceEndpoint &,
                                                              const VerificationRequest &,
                                                              VerificationCallbacks, QObject *);
    VerificationRun(DeviceEndpoint device, VerificationRequest request,
                    VerificationCallbacks callbacks, QObject *parent);
    void begin();
    void onReady();
    void armAndApply();
    void runOnDevice();
    void onRunFinished(bool ok, const QJsonObject &result, const QString &code,
                       const QString &message);
    void restoreThen(const QString &failure);
    void fail(const QString &message, ErrorKind kind = ErrorKind::Failed);
    void succeed();
    void phase(const QString &text);

    DeviceEndpoint m_device;
    VerificationRequest m_request;
    VerificationCallbacks m_callbacks;
    std::unique_ptr<DeviceClient> m_client;
    DeviceCall *m_run = nullptr;  // while run_concurrent is in flight
    QString m_token;  // the armed revert's
    bool m_armed = false;
    bool m_cancelled = false;
    bool m_finished = false;
    std::optional<VerificationOutcome> m_outcome;
    PowerMode m_previous;
};

// Checks the request and starts the run: connect, (arm the revert, apply the mode), run, restore
// or confirm. A bad request finishes at once (on the next turn of the event loop) with BadInput.
std::unique_ptr<VerificationRun> startVerification(const DeviceEndpoint &device,
                                                   const VerificationRequest &request,
                                                   VerificationCallbacks callbacks,
                                                   QObject *parent = nullptr);

}  // namespace ptwb::workflows
