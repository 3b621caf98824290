#include "sweeprunner.h"

#include "deviceclient.h"
#include "devicespecrecord.h"
#include "modes/devicespec.h"
#include "store/store.h"
#include "sweep/sweepplan.h"
#include "transport.h"
#include "util/printable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <optional>
#include <utility>

namespace ptwb {

namespace {

// A host key refused or not confirmed (Transport::lastCloseIsFinal) is no lost connection:
// connecting again cannot fix it, and it may be someone in between. Never retried.
bool closedForGood(const DeviceClient *client)
{
    return client && client->transport() && client->transport()->lastCloseIsFinal();
}

// The last line the workload wrote on stderr (the agent keeps a tail), fit to quote.
QString lastStderrLine(const DeviceError &error)
{
    const QJsonArray lines = error.details.value(QLatin1String("stderr")).toArray();
    for (qsizetype i = lines.size() - 1; i >= 0; --i) {
        const QString line = lines.at(i).toString().trimmed();
        if (!line.isEmpty())
            return printable(line, 300);
    }
    return {};
}

// PyTorch's words for it ("CUDA out of memory", "torch.OutOfMemoryError", "CUDA error: out of
// memory"): a batch that does not fit fails the same way every time, so it is never retried.
bool outOfMemory(const DeviceError &error)
{
    for (const QJsonValue &line : error.details.value(QLatin1String("stderr")).toArray()) {
        const QString text = line.toString();
        if (text.contains(QLatin1String("out of memory"), Qt::CaseInsensitive) ||
            text.contains(QLatin1String("OutOfMemoryError")))
            return true;
    }
    return false;
}

// The agent says the run cannot work in any mode (it could not start, or the launcher could not
// import torch): trying the mode again would fail the same way, so it fails at once.
bool cannotRun(const DeviceError &error)
{
    const QJsonValue retry = error.details.value(QLatin1String("retry"));
    return retry.isBool() && !retry.toBool();
}

}  // namespace

struct SweepRunner::Worker
{
    SweepDevice device;
    DeviceClient *client = nullptr;  // owned by the runner (QObject parent)
    QString bootId;
    State state = State::Working;
    std::optional<int> current;  // index into m_record.items of the mode it measures
    int reconnects = 0;
    DeviceCall *streaming = nullptr;
    QElapsedTimer itemClock;
    QElapsedTimer profileClock;
    double profileSeconds = 0;
    double livePowerW = 0;
    // A device that accepts decreasing mode changes only (docs/sweeps.md).
    bool decreasingOnly = false;
    PowerMode deviceMode;  // the device's mode as last seen (hello, apply, profile)
    QElapsedTimer rebootClock;
    int rebootsForCurrent = 0;  // planned reboots for the mode in `current`

    bool rebooting() const { return state == State::Rebooting || state == State::RebootDown; }
};

SweepRunner::SweepRunner(Store &store, qint64 sweepId, QVector<SweepDevice> devices,
                         Options options, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_sweeps(store)
    , m_sweepId(sweepId)
    , m_options(options)
{
    for (SweepDevice &device : devices) {
        auto worker = std::make_unique<Worker>();
        worker->device = std::move(device);
        m_workers.push_back(std::move(worker));
    }
}

SweepRunner::~SweepRunner() = default;

void SweepRunner::start()
{
    m_clock.start();
    Expected<SweepRecord> record = m_sweeps.load(m_sweepId);
    if (!record) {
        m_finished = true;
        Q_EMIT finished(false, record.error());
        return;
    }
    m_record = std::move(record).value();
    Expected<WorkloadSpec> workload =
        WorkloadSpec::fromJson(QJsonDocument::fromJson(m_record.plan.run.toUtf8()).object());
    if (!workload) {
        m_finished = true;
        Q_EMIT finished(false, QStringLiteral("sweep %1: %2").arg(m_sweepId).arg(workload.error()));
        return;
    }
    m_workload = *workload;
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(m_record.plan.deviceKind);
    m_ranges = spec ? plausibleRangesFor(*spec) : anyJetsonRanges();
    for (int i = 0; i < m_record.items.size(); ++i) {
        if (m_record.items[i].state == SweepItem::State::Pending)
            m_queue.push_back(i);
    }
    if (m_predicted) {
        for (int index : m_queue)
            m_predictedQueued += m_predicted(m_record.items[index].mode);
    }
    m_done = m_record.count(SweepItem::State::Done);
    m_failed = m_record.count(SweepItem::State::Failed);
    m_finishedBefore = m_done + m_failed;
    Q_EMIT message(QStringLiteral("sweep %1: %2 planned, %3 done, %4 failed, %5 to measure on %6 "
                                  "device(s)")
                       .arg(m_sweepId)
                       .arg(m_record.items.size())
                       .arg(m_done)
                       .arg(m_failed)
                       .arg(m_queue.size())
                       .arg(m_workers.size()));
    if (const Status marked =
            writeToStore(QStringLiteral("the sweep's state"),
                         [&] { return m_sweeps.setState(m_sweepId, SweepState::Running); });
        !marked) {
        // A store that cannot take the state will not take a measurement either: nothing is
        // measured, every mode stays pending.
        noteStoreFailure(marked.error());
        m_finished = true;
        Q_EMIT finished(false,
                        QStringLiteral("sweep %1: not started, %2 still pending; interrupted (%3)")
                            .arg(m_sweepId)
                            .arg(m_queue.size())
                            .arg(m_storeFailure));
        return;
    }
    if (m_queue.empty() && m_extender)
        appendChosenModes();  // an adaptive sweep resumed after its last planned mode
    if (m_queue.empty()) {
        for (auto &worker : m_workers)
            worker->state = State::Retired;  // nothing to measure: no device needs to be reached
        maybeFinish();
        return;
    }
    for (auto &worker : m_workers)
        connectWorker(*worker);
}

void SweepRunner::wakeWaiting()
{
    for (auto &worker : m_workers) {
        if (worker->state == State::WaitingForPlan) {
            worker->state = State::Working;
            next(*worker);  // takes a mode handed back, asks for more, or retires
        }
    }
}

void SweepRunner::cancel()
{
    stopEveryWorker();
    maybeFinish();
}

double SweepRunner::overheadPerModeSeconds() const
{
    return m_overheadSamples ? m_overheadSeconds / m_overheadSamples : 0;
}

void SweepRunner::connectWorker(Worker &worker)
{
    if (worker.client) {
        worker.client->disconnect(this);
        worker.client->deleteLater();
        worker.client = nullptr;
    }
    Worker *w = &worker;
    Expected<Transport *> transport = worker.device.makeTransport();
    if (!transport) {
        // The same path as a connection that drops: counted, retried, given up in the end.
        QTimer::singleShot(0, this,
                           [this, w, reason = transport.error()] { onDisconnected(*w, reason); });
        return;
    }
    worker.client = new DeviceClient(*transport, this);
    connect(worker.client, &DeviceClient::ready, this,
            [this, w](const DeviceInfo &info) { onReady(*w, info); });
    connect(worker.client, &DeviceClient::disconnected, this,
            [this, w](const QString &reason) { onDisconnected(*w, reason); });
    connect(worker.client, &DeviceClient::protocolWarning, this, [this, w](const QString &text) {
        Q_EMIT message(QStringLiteral("%1: %2").arg(w->device.target, text));
    });
    worker.client->connectToDevice();
}

void SweepRunner::onReady(Worker &worker, const DeviceInfo &info)
{
    if (info.kind.isEmpty()) {
        // A device the workbench cannot drive is refused whole, never half-used (issue 22).
        retire(worker, info.kindProblem);
        return;
    }
    if (info.kind != m_record.plan.deviceKind) {
        retire(worker,
               QStringLiteral("it is a %1, the sweep is planned for a %2")
                   .arg(info.kind, m_record.plan.deviceKind));
        return;
    }
    if (worker.rebooting()) {
        if (info.bootId == worker.bootId) {
            // Not down yet (a real device takes a few seconds to stop), or it did not reboot.
            if (worker.rebootClock.elapsed() < m_options.rebootWaitMs) {
                worker.client->disconnectFromDevice();
                return;
            }
            worker.state = State::Working;
            worker.reconnects = 0;
            failItem(worker,
                     QStringLiteral("raising clocks needs a reboot, and %1 did not reboot "
                                    "within %2 s")
                         .arg(worker.device.target)
                         .arg(m_options.rebootWaitMs / 1000));
            return;
        }
        // The planned reboot: not an interruption, the mode it was for is measured now.
        worker.state = State::Working;
        Q_EMIT message(QStringLiteral("%1 is back from the planned reboot (boot id %2 -> %3)")
                           .arg(worker.device.target, worker.bootId.left(8), info.bootId.left(8)));
    } else if (!worker.bootId.isEmpty() && worker.bootId != info.bootId) {
        Q_EMIT message(QStringLiteral("%1 rebooted (boot id %2 -> %3); the interrupted mode will "
                                      "be measured again")
                           .arg(worker.device.target, worker.bootId.left(8), info.bootId.left(8)));
    }
    if (info.decreasingOnly() && !worker.decreasingOnly) {
        Q_EMIT message(QStringLiteral("%1 accepts decreasing mode changes only: modes are taken in "
                                      "chains of falling clocks, with a reboot before each raise")
                           .arg(worker.device.target));
    }
    worker.decreasingOnly = info.decreasingOnly();
    worker.deviceMode = info.mode;
    if (worker.bootId != info.bootId) {  // its first connect, or after a reboot (an upgrade)
        if (const QString note = recordDeviceSpec(m_store, worker.device.target, info);
            !note.isEmpty())
            Q_EMIT message(note);
    }
    worker.bootId = info.bootId;
    // `reconnects` is not reset here but when a mode is finished: a device that drops the
    // connection during every profile makes no progress and is given up, not retried forever.
    if (worker.current) {
        checkTemperature(worker);  // the mode a planned reboot was for
        return;
    }
    next(worker);
}

void SweepRunner::onDisconnected(Worker &worker, const QString &reason)
{
    worker.streaming = nullptr;
    if (closedForGood(worker.client) && !m_cancelled && !m_finished &&
        worker.state != State::Retired) {
        // A reinstalled device's new key is no reason to wait for a reboot either.
        retire(worker, QStringLiteral("%1 (a host key is never retried)").arg(reason));
        return;
    }
    if (worker.rebooting() && !m_cancelled && !m_finished) {
        // Expected: the mode it reboots for stays this worker's, and the wait is not counted
        // as lost connections.
        if (worker.rebootClock.elapsed() > m_options.rebootWaitMs) {
            retire(worker,
                   QStringLiteral("not back %1 s after the reboot (%2)")
                       .arg(m_options.rebootWaitMs / 1000)
                       .arg(reason));
            return;
        }
        if (worker.state == State::Rebooting) {  // said once
            worker.state = State::RebootDown;
            Q_EMIT message(QStringLiteral("%1: rebooting (%2); reconnecting when it is back")
                               .arg(worker.device.target, reason));
        }
        reconnectLater(worker);
        return;
    }
    if (worker.rebooting())
        worker.state = State::Working;
    requeueCurrent(worker);
    if (m_cancelled || m_finished || worker.state == State::Retired) {
        worker.state = State::Retired;
        maybeFinish();
        return;
    }
    if (m_queue.empty() && !m_extender) {
        worker.state = State::Retired;  // nothing left for it; the others finish their modes
        maybeFinish();
        return;
    }
    if (++worker.reconnects > m_options.maxReconnects) {
        retire(worker,
               QStringLiteral("lost %1 times in a row with no mode measured in between (%2)")
                   .arg(m_options.maxReconnects)
                   .arg(reason));
        return;
    }
    Q_EMIT message(QStringLiteral("%1: connection lost (%2); reconnecting (%3 of %4)")
                       .arg(worker.device.target, reason)
                       .arg(worker.reconnects)
                       .arg(m_options.maxReconnects));
    reconnectLater(worker);
}

void SweepRunner::reconnectLater(Worker &worker)
{
    Worker *w = &worker;
    QTimer::singleShot(m_options.reconnectDelayMs, this, [this, w] {
        if (!m_cancelled && !m_finished) {
            connectWorker(*w);
            return;
        }
        // Cancelled while it waited: it is done, or the sweep would never finish.
        requeueCurrent(*w);
        w->state = State::Retired;
        maybeFinish();
    });
}

void SweepRunner::next(Worker &worker)
{
    if (!m_cancelled && m_queue.empty() && m_extender) {
        worker.state = State::WaitingForPlan;
        extendPlan();  // hands out new modes, or retires every waiting worker, or waits
        return;
    }
    if (m_cancelled || m_queue.empty()) {
        worker.state = State::Retired;
        maybeFinish();
        return;
    }
    worker.state = State::Working;
    worker.current = takeNext(worker);
    worker.rebootsForCurrent = 0;
    if (m_predicted)
        m_predictedQueued -= m_predicted(m_record.items[*worker.current].mode);
    worker.itemClock.start();
    checkTemperature(worker);
}

int SweepRunner::takeNext(Worker &worker)
{
    auto chosen = m_queue.begin();
    if (worker.decreasingOnly) {
        // Chain order (SweepPlan::nextInChain) from where the device is, over what is pending
        // now: a fleet shares the queue.
        QVector<PowerMode> pending;
        pending.reserve(int(m_queue.size()));
        for (int index : m_queue)
            pending.append(m_record.items[index].mode);
        chosen += SweepPlan::nextInChain(worker.deviceMode, pending);
    }
    const int index = *chosen;
    m_queue.erase(chosen);
    return index;
}

void SweepRunner::checkTemperature(Worker &worker)
{
    Worker *w = &worker;
    DeviceCall *hello = worker.client->call(QStringLiteral("hello"));
    connect(hello, &DeviceCall::finished, this, [this, w](const DeviceReply &reply) {
        if (!reply.ok) {
            // Whatever went wrong with a plain hello, the connection is not to be trusted.
            if (!connectionTrouble(*w, reply))
                w->client->disconnectFromDevice();
            return;
        }
        Expected<DeviceInfo> info = DeviceInfo::fromJson(reply.result);
        if (info && info->bootId != w->bootId) {
            // Rebooted between two modes without dropping us: start over with this mode.
            requeueCurrent(*w);
            onReady(*w, *info);
            return;
        }
        if (info) {
            w->deviceMode = info->mode;
            w->decreasingOnly = info->decreasingOnly();
        }
        const double hottest = info ? info->hottestC : 0;
        const bool cooling = w->state == State::Cooling;
        const double limit = cooling ? m_options.resumeBelowC : m_options.pauseAboveC;
        if (hottest > limit) {
            if (!cooling) {
                Q_EMIT message(QStringLiteral("%1: %2 at %3 °C; paused until it cools below "
                                              "%4 °C")
                                   .arg(w->device.target, info->hottestZone)
                                   .arg(hottest, 0, 'f', 1)
                                   .arg(m_options.resumeBelowC, 0, 'f', 1));
            }
            w->state = State::Cooling;
            QTimer::singleShot(m_options.coolingPollMs, this, [this, w] {
                if (!m_cancelled && w->client && w->client->isReady())
                    checkTemperature(*w);
            });
            return;
        }
        if (cooling)
            Q_EMIT message(QStringLiteral("%1: cooled down; going on").arg(w->device.target));
        w->state = State::Working;
        applyCurrent(*w);
    });
}

void SweepRunner::applyCurrent(Worker &worker)
{
    Worker *w = &worker;
    const PowerMode mode = m_record.items[*worker.current].mode;
    if (worker.decreasingOnly && !SweepPlan::lowersOrKeeps(worker.deviceMode, mode)) {
        rebootToRaise(worker);
        return;
    }
    DeviceCall *apply = worker.client->applyMode(mode);
    connect(apply, &DeviceCall::finished, this, [this, w, mode](const DeviceReply &reply) {
        if (reply.ok) {
            w->deviceMode = mode;  // read back and checked by the agent
            profileCurrent(*w);
            return;
        }
        if (connectionTrouble(*w, reply))
            return;
        // The device refused or mis-applied it: record why, and go on with the next mode.
        failItem(*w, reply.error.text());
    });
}

void SweepRunner::rebootToRaise(Worker &worker)
{
    const PowerMode &mode = m_record.items[*worker.current].mode;
    if (worker.rebootsForCurrent > 0) {
        // After a reboot the device is in its default mode: this one is above it.
        failItem(
            worker,
            QStringLiteral("%1 is above %2, the mode %3 boots in, and the device "
                           "accepts decreasing changes only")
                .arg(mode.toCanonical(), worker.deviceMode.toCanonical(), worker.device.target));
        return;
    }
    ++worker.rebootsForCurrent;
    ++m_plannedReboots;
    Q_EMIT message(
        QStringLiteral("rebooting %1 to raise clocks (device accepts decreasing changes "
                       "only): %2 -> %3")
            .arg(worker.device.target, worker.deviceMode.toCanonical(), mode.toCanonical()));
    worker.state = State::Rebooting;
    worker.rebootClock.start();
    Worker *w = &worker;
    // boot_id: a request repeated after the device already rebooted does not reboot it again.
    DeviceCall *reboot = worker.client->call(QStringLiteral("reboot"),
                                             {{QStringLiteral("boot_id"), worker.bootId}}, 90000);
    connect(reboot, &DeviceCall::finished, this,
            [this, w, client = QPointer<DeviceClient>(worker.client)](const DeviceReply &reply) {
                if (reply.ok) {
                    // The device drops the connection as it goes down; if it never does, drop
                    // it: the reconnect then sees whether the boot id changed.
                    QTimer::singleShot(m_options.rebootWaitMs, this, [w, client] {
                        if (w->rebooting() && client && client == w->client)
                            client->disconnectFromDevice();
                    });
                    return;
                }
                if (reply.error.code == QLatin1String("disconnected"))
                    return;  // it went down before the reply: expected
                if (reply.error.code == QLatin1String("timeout") ||
                    reply.error.code == QLatin1String("boot_changed")) {
                    w->client->disconnectFromDevice();  // the reconnect sees the boot id
                    return;
                }
                w->state = State::Working;
                failItem(*w,
                         QStringLiteral("raising clocks needs a reboot, which failed: %1")
                             .arg(reply.error.text()));
            });
}

void SweepRunner::profileCurrent(Worker &worker)
{
    Worker *w = &worker;
    worker.profileClock.start();
    DeviceCall *profile = worker.client->call(
        QStringLiteral("profile"),
        {{QStringLiteral("workload"),
          m_workload.atBatch(m_record.items[*worker.current].batchSize).toJson()},
         {QStringLiteral("minibatches"), m_record.plan.minibatches}},
        m_options.profileTimeoutMs);
    worker.streaming = profile;
    connect(profile, &DeviceCall::eventReceived, this,
            [this, w](const QString &kind, const QJsonObject &event) {
                // A reading no device of this kind gives (1e300 W, a negative minibatch) is not
                // plotted or shown: dropped here, as its reply would be refused.
                const char *number = kind == QLatin1String("power") ? "total_w"
                    : kind == QLatin1String("minibatch")            ? "ms"
                                                                    : nullptr;
                const PlausibleRange &range =
                    kind == QLatin1String("power") ? m_ranges.powerW : m_ranges.minibatchMs;
                if (number && !range.contains(event.value(QLatin1String(number)).toDouble()))
                    return;
                if (w->current)
                    Q_EMIT profileEvent(w->device.target, m_record.items[*w->current].mode, kind,
                                        event);
                if (kind == QLatin1String("power")) {
                    w->livePowerW = event.value(QLatin1String("total_w")).toDouble();
                    emitProgress(*w);
                }
            });
    connect(profile, &DeviceCall::finished, this, [this, w](const DeviceReply &reply) {
        w->profileSeconds = w->profileClock.nsecsElapsed() / 1e9;
        w->streaming = nullptr;
        if (reply.ok) {
            Expected<ProfileResult> result = ProfileResult::fromJson(reply.result, m_ranges);
            if (result)
                finishItem(*w, *result);
            else
                retryOrFail(*w, result.error());
            return;
        }
        if (connectionTrouble(*w, reply))
            return;
        if (reply.error.code == QLatin1String("stopped")) {  // cancelled: it stays pending
            requeueCurrent(*w);
            next(*w);
            return;
        }
        const QString tail = lastStderrLine(reply.error);
        const QString reason = tail.isEmpty()
            ? printable(reply.error.text(), 1000)
            : QStringLiteral("%1 (%2)").arg(printable(reply.error.text(), 1000), tail);
        const QVector<WorkloadOutputLine> output = failedWorkloadOutput(reply.error.details);
        if (outOfMemory(reply.error)) {
            failOutOfMemory(*w, reason, output);
            return;
        }
        if (cannotRun(reply.error)) {
            failItem(*w, reason, output);
            return;
        }
        // The workload failed or the run was unusable: may be passing (a busy device, power
        // that never settled), so the mode gets another try before it counts as failed.
        retryOrFail(*w, reason, output);
    });
}

void SweepRunner::failOutOfMemory(Worker &worker, const QString &reason,
                                  const QVector<WorkloadOutputLine> &output)
{
    const int batch = m_record.items[*worker.current].batchSize;
    // Before failItem, which takes the worker's next item from the queue.
    skipLargerBatches(worker, batch);
    failItem(worker, QStringLiteral("does not fit in the device's memory: %1").arg(reason), output);
}

void SweepRunner::skipLargerBatches(Worker &worker, int batch)
{
    if (batch <= 0)
        return;
    // Memory grows with the batch, not with the clocks: this batch or a larger one does not
    // fit in any other mode either, so it is recorded as failed without being profiled.
    int skipped = 0;
    for (auto it = m_queue.begin(); it != m_queue.end();) {
        SweepItem &item = m_record.items[*it];
        if (item.batchSize < batch) {
            ++it;
            continue;
        }
        const QString why =
            QStringLiteral("not profiled: batch %1 ran out of memory on %2 in "
                           "%3, and batch %4 needs at least as much")
                .arg(batch)
                .arg(worker.device.target, m_record.items[*worker.current].mode.toCanonical())
                .arg(item.batchSize);
        if (Status stored =
                m_sweeps.recordFailed(m_sweepId, item.position, why, worker.device.target);
            !stored) {
            Q_EMIT message(QStringLiteral("%1: %2").arg(worker.device.target, stored.error()));
            ++it;
            continue;
        }
        item.state = SweepItem::State::Failed;
        item.reason = why;
        ++m_failed;
        ++skipped;
        if (m_predicted)
            m_predictedQueued -= m_predicted(item.mode);
        Q_EMIT itemRecorded(item, Measurement {});
        it = m_queue.erase(it);
    }
    if (skipped > 0) {
        Q_EMIT message(QStringLiteral("%1: batch %2 ran out of memory; %3 planned items at "
                                      "that batch or larger are not profiled")
                           .arg(worker.device.target)
                           .arg(batch)
                           .arg(skipped));
    }
}

bool SweepRunner::connectionTrouble(Worker &worker, const DeviceReply &reply)
{
    if (reply.error.code == QLatin1String("timeout")) {
        worker.client->disconnectFromDevice();  // stopped answering: drop it, reconnect
        return true;
    }
    // A lost connection: onDisconnected requeues the mode and reconnects.
    return reply.error.code == QLatin1String("disconnected");
}

void SweepRunner::retryOrFail(Worker &worker, const QString &reason,
                              const QVector<WorkloadOutputLine> &output)
{
    const int attempts = ++m_attempts[*worker.current];
    if (attempts < m_options.maxAttempts) {
        Q_EMIT message(QStringLiteral("%1: %2: %3; trying again (%4 of %5)")
                           .arg(worker.device.target,
                                m_record.items[*worker.current].mode.toCanonical(), reason)
                           .arg(attempts + 1)
                           .arg(m_options.maxAttempts));
        requeueCurrent(worker);
        next(worker);
        return;
    }
    failItem(worker, reason, output);
}

void SweepRunner::finishItem(Worker &worker, const ProfileResult &result)
{
    SweepItem &item = m_record.items[*worker.current];
    if (!result.bootId.isEmpty() && result.bootId != worker.bootId) {
        // Rebooted while measuring: the numbers mix two boots. Measure it again.
        Q_EMIT message(QStringLiteral("%1: boot id changed during %2; measuring it again")
                           .arg(worker.device.target, item.mode.toShort()));
        requeueCurrent(worker);
        worker.client->disconnectFromDevice();
        return;
    }
    if (result.mode.toCanonical() != item.mode.toCanonical()) {
        failItem(worker,
                 QStringLiteral("clocks read back as %1 after the run (throttling?)")
                     .arg(result.mode.toCanonical()));
        return;
    }
    Measurement m;
    m.mode = item.mode;
    const WorkloadSpec run = m_workload.atBatch(item.batchSize);
    (run.inference ? m.inferenceBatch : m.trainingBatch) = run.knownBatch();
    m.timeMs = result.timeMs.median;
    m.powerW = result.powerW.median;
    m.peakPowerW = result.peakPowerW;
    m.timeSpreadMs = result.timeMs.q3 - result.timeMs.q1;
    m.powerSpreadW = result.powerW.q3 - result.powerW.q1;
    m.minibatches = result.minibatches;
    m.bootId = result.bootId.isEmpty() ? worker.bootId : result.bootId;
    worker.deviceMode = result.mode;
    m.source = QStringLiteral("sweep");
    const QString what = QStringLiteral("the measurement of %1").arg(item.mode.toCanonical());
    const Expected<qint64> stored = writeToStore(what, [&] {
        return m_sweeps.recordDone(m_sweepId, item.position, m, worker.device.target);
    });
    if (!stored && stored.errorKind() != ErrorKind::BadInput) {
        stopForStore(worker, what, stored.error());
        return;
    }
    if (!stored) {
        Q_EMIT message(QStringLiteral("%1: %2").arg(worker.device.target, stored.error()));
    } else {
        item.state = SweepItem::State::Done;
        item.measurementId = *stored;
        worker.reconnects = 0;
        m_failuresInARow = 0;
        m.id = *stored;
        ++m_done;
        if (m_predicted)
            m_predictedFinished += m_predicted(item.mode);
        const double overhead = worker.itemClock.nsecsElapsed() / 1e9 - worker.profileSeconds;
        m_overheadSeconds += std::max(0.0, overhead);
        ++m_overheadSamples;
        Q_EMIT itemRecorded(item, m);
    }
    worker.current.reset();
    emitProgress(worker);
    next(worker);
}

void SweepRunner::failItem(Worker &worker, const QString &reason,
                           const QVector<WorkloadOutputLine> &output)
{
    SweepItem &item = m_record.items[*worker.current];
    const QString what = item.batchSize > 0
        ? QStringLiteral("%1 at batch %2").arg(item.mode.toCanonical()).arg(item.batchSize)
        : item.mode.toCanonical();
    Q_EMIT message(QStringLiteral("%1: %2 failed: %3").arg(worker.device.target, what, reason));
    const Status stored = writeToStore(QStringLiteral("the failure of %1").arg(what), [&] {
        return m_sweeps.recordFailed(m_sweepId, item.position, reason, worker.device.target,
                                     output);
    });
    if (!stored && stored.errorKind() != ErrorKind::BadInput) {
        stopForStore(worker, QStringLiteral("the failure of %1").arg(what), stored.error());
        return;
    }
    if (stored) {
        item.state = SweepItem::State::Failed;
        item.reason = reason;
        item.output = output;
        ++m_failed;
        countFailure(reason);
        worker.reconnects = 0;
        Q_EMIT itemRecorded(item, Measurement {});
        if (m_predicted)
            m_predictedFinished += m_predicted(item.mode);
    }
    worker.current.reset();
    emitProgress(worker);
    next(worker);
}

void SweepRunner::countFailure(const QString &reason)
{
    ++m_failuresInARow;
    if (m_options.stopAfterFailures <= 0 || m_failuresInARow < m_options.stopAfterFailures ||
        m_cancelled || m_queue.empty())
        return;
    m_stoppedBecause = QStringLiteral("stopped after %1 consecutive failures: %2")
                           .arg(m_failuresInARow)
                           .arg(reason);
    Q_EMIT message(QStringLiteral("sweep %1: %2").arg(m_sweepId).arg(m_stoppedBecause));
    stopEveryWorker();
}

void SweepRunner::stopEveryWorker()
{
    // As a cancel: the modes in flight on other devices stay pending, the sweep resumable.
    m_cancelled = true;
    wakeWaiting();  // they retire: nothing new starts after a cancel
    for (auto &worker : m_workers) {
        if (worker->streaming && worker->client)
            worker->client->stop(worker->streaming);
    }
    if (std::exchange(m_stopGraceArmed, true))
        return;
    // A device that ignores `stop`, or a call it never answers, must not hold the stop up to
    // the call's own timeout: after the grace period each connection still busy is closed (its
    // mode stays pending, measured again on resume).
    QTimer::singleShot(m_options.stopGraceMs, this, [this] {
        if (m_finished)
            return;
        for (auto &worker : m_workers) {
            if (worker->state == State::Retired || !worker->client)
                continue;
            Q_EMIT message(QStringLiteral("%1: no answer %2 s after the sweep stopped; "
                                          "disconnecting (its mode stays pending)")
                               .arg(worker->device.target)
                               .arg(m_options.stopGraceMs / 1000.0));
            worker->client->disconnectFromDevice();
        }
    });
}

template<typename Write>
auto SweepRunner::writeToStore(const QString &what, Write write) -> decltype(write())
{
    auto result = write();
    int delayMs = m_options.storeRetryDelayMs;
    for (int attempt = 2;
         !result && result.errorKind() != ErrorKind::BadInput && attempt <= m_options.storeAttempts;
         ++attempt) {
        Q_EMIT message(QStringLiteral("sweep %1: storing %2 failed: %3; trying again in %4 s "
                                      "(%5 of %6)")
                           .arg(m_sweepId)
                           .arg(what, result.error())
                           .arg(delayMs / 1000.0)
                           .arg(attempt)
                           .arg(m_options.storeAttempts));
        QThread::msleep(std::max(0, delayMs));
        delayMs *= 2;
        result = write();
    }
    return result;
}

void SweepRunner::noteStoreFailure(const QString &error)
{
    if (m_storeFailure.isEmpty())
        m_storeFailure = QStringLiteral("store write failed: %1").arg(error);
}

void SweepRunner::stopForStore(Worker &worker, const QString &what, const QString &error)
{
    noteStoreFailure(error);
    Q_EMIT message(QStringLiteral("sweep %1: %2 could not be stored (%3); the mode stays pending "
                                  "and the sweep stops, interrupted")
                       .arg(m_sweepId)
                       .arg(what, error));
    requeueCurrent(worker);  // pending in the store too: measured again on resume
    stopEveryWorker();
    emitProgress(worker);
    next(worker);  // retires it
}

void SweepRunner::requeueCurrent(Worker &worker)
{
    if (!worker.current)
        return;
    m_queue.push_front(*worker.current);  // first again: no gap in the plan's order
    if (m_predicted)
        m_predictedQueued += m_predicted(m_record.items[*worker.current].mode);
    worker.current.reset();
}

void SweepRunner::retire(Worker &worker, const QString &why)
{
    requeueCurrent(worker);
    worker.state = State::Retired;
    Q_EMIT message(QStringLiteral("%1: given up: %2").arg(worker.device.target, why));
    if (worker.client)
        worker.client->disconnectFromDevice();
    wakeWaiting();
    maybeFinish();
}

void SweepRunner::emitProgress(const Worker &worker)
{
    SweepProgress p;
    p.total = int(m_record.items.size());
    p.done = m_done;
    p.failed = m_failed;
    p.elapsedSeconds = m_clock.nsecsElapsed() / 1e9;
    p.remainingSeconds = remainingSeconds(p.elapsedSeconds);
    if (worker.current) {
        p.currentMode = m_record.items[*worker.current].mode.toCanonical();
        p.currentBatch = m_record.items[*worker.current].batchSize;
    }
    p.target = worker.device.target;
    p.livePowerW = worker.livePowerW;
    Q_EMIT progress(p);
}

int SweepRunner::appendChosenModes()
{
    Expected<QVector<PlannedItem>> more = m_extender(m_record);
    if (!more) {
        Q_EMIT message(QStringLiteral("sweep %1: choosing more modes failed: %2")
                           .arg(m_sweepId)
                           .arg(more.error()));
        return 0;
    }
    if (more->isEmpty())
        return 0;  // converged: the plan is complete
    Expected<QVector<SweepItem>> added = writeToStore(QStringLiteral("the modes chosen next"), [&] {
        return m_sweeps.appendItems(m_sweepId, *more, m_record.plan.repeats);
    });
    if (!added) {
        // The plan is not complete: it could not grow.
        noteStoreFailure(added.error());
        Q_EMIT message(QStringLiteral("sweep %1: %2").arg(m_sweepId).arg(added.error()));
        return 0;
    }
    for (const SweepItem &item : *added) {
        m_queue.push_back(int(m_record.items.size()));
        m_record.items.append(item);
        if (m_predicted)
            m_predictedQueued += m_predicted(item.mode);
    }
    const Expected<std::optional<SearchGoal>> goal = SearchGoal::of(m_record.plan.modeSet);
    const bool search = goal && goal->has_value();
    const bool cap = m_record.plan.modeSet.startsWith(QLatin1String("cap:"));
    Q_EMIT message(QStringLiteral("sweep %1: %2 more modes chosen by %3 (%4 planned)")
                       .arg(m_sweepId)
                       .arg(more->size())
                       .arg(search    ? (*goal)->strategy
                                : cap ? QStringLiteral("the cap ladder")
                                      : QStringLiteral("active learning"))
                       .arg(m_record.items.size()));
    return int(added->size());
}

bool SweepRunner::extendPlan()
{
    // Only once every device is idle: the choice of new modes uses every measurement.
    for (const auto &worker : m_workers) {
        if (worker->state != State::Retired && worker->state != State::WaitingForPlan)
            return true;  // the busy one asks again when it runs out of modes
    }
    const bool grown = appendChosenModes() > 0;
    for (auto &worker : m_workers) {
        if (worker->state != State::WaitingForPlan)
            continue;
        worker->state = State::Working;
        if (grown) {
            next(*worker);
        } else {
            worker->state = State::Retired;
        }
    }
    if (!grown)
        maybeFinish();
    return true;
}

double SweepRunner::remainingSeconds(double elapsed) const
{
    const int finishedItems = m_done + m_failed - m_finishedBefore;
    if (finishedItems <= 0)
        return -1;
    // Devices working in parallel are already in the elapsed time.
    if (m_predicted && m_predictedFinished > 0)
        return m_predictedQueued * elapsed / m_predictedFinished;
    return elapsed / finishedItems * double(m_queue.size());
}

void SweepRunner::maybeFinish()
{
    if (m_finished)
        return;
    for (const auto &worker : m_workers) {
        if (worker->state != State::Retired)
            return;
    }
    m_finished = true;
    // What the store holds decides: a mode whose result could not be written is pending there,
    // whatever this run's queue says.
    int done = m_done;
    int failed = m_failed;
    int pending = int(m_queue.size());
    if (const Expected<SweepRecord> stored = m_sweeps.load(m_sweepId); stored) {
        done = stored->count(SweepItem::State::Done);
        failed = stored->count(SweepItem::State::Failed);
        pending = stored->count(SweepItem::State::Pending);
    } else {
        noteStoreFailure(QStringLiteral("reading the sweep back: %1").arg(stored.error()));
    }
    bool complete = pending == 0 && m_storeFailure.isEmpty();
    const bool stopped = !m_stoppedBecause.isEmpty() && !complete;
    const SweepState state = complete ? SweepState::Done
        : !m_storeFailure.isEmpty()   ? SweepState::Interrupted
        : stopped                     ? SweepState::Paused
                                      : SweepState::Interrupted;
    // After the counts: the planned reboots, and why the sweep stopped early.
    QString after = m_plannedReboots
        ? QStringLiteral(", %1 planned reboot(s) to raise clocks").arg(m_plannedReboots)
        : QString();
    if (stopped && m_storeFailure.isEmpty())
        after += QStringLiteral("; %1").arg(m_stoppedBecause);
    if (!m_storeFailure.isEmpty())
        after += QStringLiteral("; interrupted (%1)").arg(m_storeFailure);
    if (const Status marked = writeToStore(QStringLiteral("the sweep's state"),
                                           [&] { return m_sweeps.setState(m_sweepId, state); });
        !marked) {
        complete = false;
        after += QStringLiteral("; the store could not mark it %1 (%2), it reads as running "
                                "until resumed")
                     .arg(sweepStateText(state), marked.error());
    }
    Q_EMIT finished(complete,
                    QStringLiteral("sweep %1: %2 measured, %3 failed, %4 still pending%5")
                        .arg(m_sweepId)
                        .arg(done)
                        .arg(failed)
                        .arg(pending)
                        .arg(after));
}

}  // namespace ptwb
