#include "concurrentverify.h"

#include "concurrent/concurrentspace.h"
#include "deviceclient.h"
#include "transport.h"
#include "util/printable.h"

#include <QTimer>

#include <cmath>

namespace ptwb::workflows {

namespace {

constexpr double kMaxArrivalRate = 10000;  // the agent's limits (docs/device-protocol.md)
constexpr double kMaxRequests = 200000;
constexpr int kMaxBatch = 4096;
constexpr double kMaxDurationS = 3000;  // leaves the armed revert room within its 3600 s
constexpr double kRevertMarginS = 600;  // warm-up (model build, CUDA start) and the restore
constexpr int kMaxDeviceMessage = 500;  // characters of a device's error shown
constexpr int kRunTimeoutMs = 300000;  // without a line from the run: warm-up on a slow device

}  // namespace

Status checkVerification(const VerificationRequest &request)
{
    if (request.trainWorkload.isEmpty())
        return Status::badInput(InputField::Training, QStringLiteral("no training workload"));
    if (request.inferWorkload.isEmpty())
        return Status::badInput(InputField::Inference, QStringLiteral("no inference workload"));
    if (request.trainBatch < 1 || request.trainBatch > kMaxBatch)
        return Status::badInput(InputField::Training,
                                QStringLiteral("training batch size %1: expected 1..%2")
                                    .arg(request.trainBatch)
                                    .arg(kMaxBatch));
    if (request.inferBatch < 1 || request.inferBatch > kMaxBatch)
        return Status::badInput(InputField::Inference,
                                QStringLiteral("inference batch size %1: expected 1..%2")
                                    .arg(request.inferBatch)
                                    .arg(kMaxBatch));
    if (!(request.arrivalRate > 0 && request.arrivalRate <= kMaxArrivalRate))
        return Status::badInput(InputField::ArrivalRate,
                                QStringLiteral("%1 requests/s: expected above 0, at most %2")
                                    .arg(request.arrivalRate)
                                    .arg(kMaxArrivalRate));
    if (!(request.durationS >= 1 && request.durationS <= kMaxDurationS))
        return Status::badInput(InputField::Run,
                                QStringLiteral("run of %1 s: expected 1..%2 seconds")
                                    .arg(request.durationS)
                                    .arg(kMaxDurationS));
    const double requests = request.arrivalRate * request.durationS;
    if (requests > kMaxRequests)
        return Status::badInput(InputField::Run,
                                QStringLiteral("%1 s at %2 requests/s is %3 requests; at most %4 "
                                               "per run")
                                    .arg(request.durationS)
                                    .arg(request.arrivalRate)
                                    .arg(qint64(requests))
                                    .arg(kMaxRequests));
    if (requests < request.inferBatch)
        return Status::badInput(InputField::Run,
                                QStringLiteral("%1 s at %2 requests/s does not fill one inference "
                                               "batch of %3")
                                    .arg(request.durationS)
                                    .arg(request.arrivalRate)
                                    .arg(request.inferBatch));
    if (request.mode &&
        (request.mode->cores < 1 || request.mode->cpuKHz <= 0 || request.mode->gpuHz <= 0 ||
         request.mode->emcHz <= 0))
        return Status::badInput(InputField::Mode, QStringLiteral("not a power mode"));
    return {};
}

Expected<PairCost> predictedCost(const ConcurrentSpace &space, const PowerMode &mode, int batch)
{
    const ConcurrentData &data = space.data();
    const int modeIndex = int(data.modes.indexOf(mode));
    if (modeIndex < 0)
        return Expected<PairCost>::badInput(
            InputField::Mode,
            QStringLiteral("%1: the inference workload has no measurements "
                           "at this mode to predict from")
                .arg(mode.toShort()));
    const int batchIndex = int(data.batches.indexOf(batch));
    if (batchIndex < 0) {
        QStringList known;
        for (int b : data.batches)
            known.append(QString::number(b));
        return Expected<PairCost>::badInput(
            InputField::Inference,
            QStringLiteral("inference batch %1 is not among the measured ones (%2)")
                .arg(batch)
                .arg(known.join(QStringLiteral(", "))));
    }
    return space.cost(data.pairOf(modeIndex, batchIndex));
}

BudgetCheck latencyCheck(const ConcurrentProblem &problem, const ConcurrentMeasurement &measured)
{
    BudgetCheck check;
    check.budget = problem.latencyBudgetS;
    if (measured.latencyMs)
        check.measured = measured.latencyMs->p99 / 1000.0;
    return check;
}

BudgetCheck powerCheck(const ConcurrentProblem &problem, const ConcurrentMeasurement &measured)
{
    return {problem.powerBudgetW, measured.powerMedianW};
}

ConcurrentOutcome formulasFromMeasured(const ConcurrentProblem &problem,
                                       const ConcurrentMeasurement &measured, int batch)
{
    PairCost cost;
    cost.trainTimeMs = measured.trainMsMedian > 0 ? measured.trainMsMedian : INFINITY;
    cost.inferTimeMs = measured.inferMsMedian;
    cost.trainPowerW = measured.powerMedianW.value_or(0);
    cost.inferPowerW = measured.powerMedianW.value_or(0);
    cost.batch = batch;
    return assess(problem, cost);
}

VerificationRun::VerificationRun(DeviceEndpoint device, VerificationRequest request,
                                 VerificationCallbacks callbacks, QObject *parent)
    : QObject(parent)
    , m_device(std::move(device))
    , m_request(std::move(request))
    , m_callbacks(std::move(callbacks))
{
    m_request.problem.arrivalRate = m_request.arrivalRate;
}

VerificationRun::~VerificationRun()
{
    // Destroyed mid-run: the connection closes, the agent ends the run with it, and the armed
    // revert restores the previous mode at its deadline.
    m_finished = true;
    if (m_client)
        m_client->disconnectFromDevice();
}

void VerificationRun::phase(const QString &text)
{
    if (m_callbacks.phase)
        m_callbacks.phase(text);
}

void VerificationRun::begin()
{
    const Status checked = checkVerification(m_request);
    if (!checked) {
        QTimer::singleShot(0, this, [this, checked] {
            m_finished = true;
            if (m_callbacks.finished)
                m_callbacks.finished(passOn<Expected<VerificationOutcome>>(checked));
        });
        return;
    }
    Expected<Transport *> transport = m_device.connect();
    if (!transport) {
        const QString error = transport.error();
        QTimer::singleShot(0, this, [this, error] { fail(error); });
        return;
    }
    m_client = std::make_unique<DeviceClient>(*transport);
    connect(m_client.get(), &DeviceClient::ready, this, [this] { onReady(); });
    connect(m_client.get(), &DeviceClient::disconnected, this, [this](const QString &reason) {
        if (m_finished || m_run)
            return;  // a call in flight reports it
        if (!m_client->isReady() && !m_armed)
            fail(QStringLiteral("%1: %2").arg(m_device.address, reason));
    });
    phase(QStringLiteral("connecting to %1").arg(m_device.name));
    m_client->connectToDevice();
}

void VerificationRun::onReady()
{
    if (m_cancelled) {
        fail(QStringLiteral("cancelled"));
        return;
    }
    if (m_request.mode)
        armAndApply();
    else
        runOnDevice();
}

void VerificationRun::armAndApply()
{
    const int seconds = int(std::ceil(std::min(3600.0, m_request.durationS + kRevertMarginS)));
    phase(QStringLiteral("applying %1 (reverts by itself within %2 device seconds unless "
                         "confirmed)")
              .arg(m_request.mode->toShort())
              .arg(seconds));
    DeviceCall *arm = m_client->armRevert(seconds);
    connect(arm, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
        if (!reply.ok) {
            fail(QStringLiteral("arming the revert: %1").arg(reply.error.text()));
            return;
        }
        const Expected<PowerMode> previous = modeFromJson(
            reply.result.value(QLatin1String("previous")).toObject(), QStringLiteral("previous"));
        m_token = reply.result.value(QLatin1String("token")).toString();
        if (!previous || m_token.isEmpty()) {
            fail(QStringLiteral("arming the revert: %1")
                     .arg(previous ? QStringLiteral("no token") : previous.error()));
            return;
        }
        m_armed = true;
        m_previous = *previous;
        if (m_cancelled) {
            restoreThen(QStringLiteral("cancelled"));
            return;
        }
        DeviceCall *apply = m_client->applyMode(*m_request.mode);
        connect(apply, &DeviceCall::finished, this, [this](const DeviceReply &applied) {
            if (!applied.ok) {
                restoreThen(QStringLiteral("applying %1: %2")
                                .arg(m_request.mode->toShort(), applied.error.text()));
                return;
            }
            if (m_cancelled) {
                restoreThen(QStringLiteral("cancelled"));
                return;
            }
            runOnDevice();
        });
    });
}

void VerificationRun::runOnDevice()
{
    ConcurrentRunRequest run;
    run.train.builtin = m_request.trainWorkload;
    run.train.batchSize = m_request.trainBatch;
    run.infer.builtin = m_request.inferWorkload;
    run.infer.batchSize = m_request.inferBatch;
    run.infer.inference = true;
    run.arrivalRate = m_request.arrivalRate;
    run.durationS = m_request.durationS;
    phase(QStringLiteral("warming up %1 and %2 on the device")
              .arg(m_request.trainWorkload, m_request.inferWorkload));
    m_run = m_client->runConcurrent(run, kRunTimeoutMs);
    auto warned = std::make_shared<bool>(false);
    connect(m_run, &DeviceCall::eventReceived, this,
            [this, warned](const QString &kind, const QJsonObject &event) {
                if (kind == QLatin1String("warmed_up")) {
                    phase(QStringLiteral("serving %1 requests/s in batches of %2, training in "
                                         "between (warm-up: training minibatch %3 ms, inference "
                                         "minibatch %4 ms)")
                              .arg(m_request.arrivalRate)
                              .arg(m_request.inferBatch)
                              .arg(event.value(QLatin1String("train_ms")).toDouble(), 0, 'f', 1)
                              .arg(event.value(QLatin1String("infer_ms")).toDouble(), 0, 'f', 1));
                    return;
                }
                if (kind != QLatin1String("progress"))
                    return;
                const Expected<ConcurrentMeasurement> measured =
                    ConcurrentMeasurement::fromProgress(event);
                if (!measured) {
                    if (!*warned)
                        phase(QStringLiteral("ignored a progress event: %1").arg(measured.error()));
                    *warned = true;
                    return;
                }
                if (m_callbacks.progress)
                    m_callbacks.progress(*measured);
            });
    connect(m_run, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
        m_run = nullptr;
        onRunFinished(reply.ok, reply.result, reply.error.code, reply.error.message);
    });
}

void VerificationRun::onRunFinished(bool ok, const QJsonObject &result, const QString &code,
                                    const QString &message)
{
    if (!ok) {
        // The device's words reach a terminal and a dialog: bounded, no control characters.
        const QString said = printable(message, kMaxDeviceMessage);
        if (code == QLatin1String("disconnected") || code == QLatin1String("timeout")) {
            fail(QStringLiteral("%1: %2%3")
                     .arg(m_device.address, said,
                          m_armed ? QStringLiteral("; the device restores %1 by itself at the "
                                                   "armed deadline")
                                        .arg(m_previous.toShort())
                                  : QString()));
            return;
        }
        restoreThen(m_cancelled && code == QLatin1String("stopped")
                        ? QStringLiteral("cancelled")
                        : QStringLiteral("run_concurrent: %1: %2")
                              .arg(printable(code, kMaxDeviceMessage), said));
        return;
    }
    const Expected<ConcurrentMeasurement> measured = ConcurrentMeasurement::fromResult(result);
    if (!measured) {
        restoreThen(measured.error());
        return;
    }
    if (m_request.mode && measured->mode != *m_request.mode) {
        restoreThen(QStringLiteral("the device ran %1 at the end of the run, not %2 (throttled, "
                                   "or its revert fired): the run does not measure the mode")
                        .arg(measured->mode.toShort(), m_request.mode->toShort()));
        return;
    }
    VerificationOutcome outcome;
    outcome.measured = *measured;
    outcome.fromMeasuredTimes =
        formulasFromMeasured(m_request.problem, *measured, m_request.inferBatch);
    if (m_request.predicted) {
        PairCost cost = *m_request.predicted;
        cost.batch = m_request.inferBatch;
        outcome.predicted = assess(m_request.problem, cost);
    }
    outcome.previousMode = m_request.mode ? m_previous : measured->mode;
    m_outcome = outcome;
    if (m_request.mode && m_request.keepMode) {
        phase(QStringLiteral("keeping %1").arg(m_request.mode->toShort()));
        DeviceCall *confirm =
            m_client->call(QStringLiteral("confirm"), {{QStringLiteral("token"), m_token}});
        connect(confirm, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
            if (!reply.ok) {
                fail(QStringLiteral("confirming %1: %2; the device restores %3 by itself")
                         .arg(m_request.mode->toShort(), reply.error.text(), m_previous.toShort()));
                return;
            }
            m_armed = false;
            m_outcome->modeKept = true;
            succeed();
        });
        return;
    }
    restoreThen(QString());
}

void VerificationRun::restoreThen(const QString &failure)
{
    if (!m_armed) {
        if (failure.isEmpty())
            succeed();
        else
            fail(failure);
        return;
    }
    phase(QStringLiteral("restoring %1").arg(m_previous.toShort()));
    DeviceCall *apply = m_client->applyMode(m_previous);
    connect(apply, &DeviceCall::finished, this, [this, failure](const DeviceReply &reply) {
        if (!reply.ok) {
            // Not confirmed: the revert armed before the apply restores it at its deadline.
            fail(QStringLiteral("%1%2restoring %3: %4; the device restores it by itself at the "
                                "armed deadline")
                     .arg(failure, failure.isEmpty() ? QString() : QStringLiteral("; "),
                          m_previous.toShort(), reply.error.text()));
            return;
        }
        DeviceCall *confirm =
            m_client->call(QStringLiteral("confirm"), {{QStringLiteral("token"), m_token}});
        connect(confirm, &DeviceCall::finished, this, [this, failure](const DeviceReply &done) {
            // Unconfirmed, the revert re-applies the mode the device already runs: harmless.
            m_armed = !done.ok;
            if (failure.isEmpty())
                succeed();
            else
                fail(failure);
        });
    });
}

void VerificationRun::cancel()
{
    if (m_finished || m_cancelled)
        return;
    m_cancelled = true;
    phase(QStringLiteral("cancelling"));
    if (m_run && m_client)
        m_client->stop(m_run);
    else if (m_client && !m_client->isReady() && !m_armed)
        fail(QStringLiteral("cancelled"));
}

void VerificationRun::fail(const QString &message, ErrorKind kind)
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_client) {
        m_client->disconnectFromDevice();
        m_client.release()->deleteLater();
    }
    if (m_callbacks.finished)
        m_callbacks.finished(Expected<VerificationOutcome>::failure(message, kind));
}

void VerificationRun::succeed()
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_client) {
        m_client->disconnectFromDevice();
        m_client.release()->deleteLater();
    }
    if (m_callbacks.finished)
        m_callbacks.finished(*m_outcome);
}

std::unique_ptr<VerificationRun> startVerification(const DeviceEndpoint &device,
                                                   const VerificationRequest &request,
                                                   VerificationCallbacks callbacks, QObject *parent)
{
    std::unique_ptr<VerificationRun> run(
        new VerificationRun(device, request, std::move(callbacks), parent));
    run->begin();
    return run;
}

}  // namespace ptwb::workflows
