#pragma once

#include "store/sweepstore.h"
#include "util/expected.h"
#include "wire.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QVector>

#include <deque>
#include <functional>
#include <memory>

namespace ptwb {

class DeviceClient;
struct DeviceReply;
class Store;
class Transport;

// One device of a sweep: a name for logs and the store, and how to reach it (called again for
// every reconnect, so it returns a fresh transport each time, or why there is none).
struct SweepDevice
{
    QString target;
    std::function<Expected<Transport *>()> makeTransport;
};

struct SweepProgress
{
    int total = 0;
    int done = 0;
    int failed = 0;
    double elapsedSeconds = 0;
    double remainingSeconds = -1;  // -1 until it can be estimated
    QString currentMode;  // of the device that reported last
    int currentBatch = 0;  // the minibatch size it profiles; 0: the sweep's run's own
    QString target;
    double livePowerW = 0;
};

// Runs the pending items of a stored sweep on one or more devices (a fleet shares one queue).
// Each profiled mode is stored in its own transaction as soon as it is measured. A dropped
// connection or a killed agent is reconnected, but an SSH host key refused or not confirmed
// gives that device up at once (that is no lost connection); a device whose boot id changed has
// rebooted, and the mode it was measuring is measured again; a refused or mis-applied mode is
// recorded as failed with the reason, and the sweep goes on; a device hotter than the limit is
// paused until it cools. A device that accepts decreasing mode changes only (hello: "mode_changes":
// "decreasing") takes the pending modes in chains of falling clocks (SweepPlan::lowersOrKeeps)
// from its current mode, and is asked to reboot before a raise; that planned boot id change is
// not an interruption. Event-driven on the thread that owns it: nothing blocks.
class SweepRunner : public QObject
{
    Q_OBJECT

public:
    struct Options
    {
        // Lost connections in a row with no mode finished in between, per device, before it
        // is given up.
        int maxReconnects = 5;
        int reconnectDelayMs = 1000;
        double pauseAboveC = 85;  // overheating: pause until below resumeBelowC
        double resumeBelowC = 75;
        int coolingPollMs = 5000;
        int profileTimeoutMs = 120000;  // of silence: events restart the clock
        int maxAttempts = 3;  // profiles of one mode whose run failed or was unusable
        int rebootWaitMs = 300000;  // a planned reboot: how long the device may take to be back
        // Failed modes in a row (a success resets the count) before the sweep stops, resumable
        // (Paused); 0: never. A workload that cannot run fails every mode the same way.
        int stopAfterFailures = 3;
        // A store write that fails (the store locked past its busy timeout, a full disk, an I/O
        // error) is tried this many times in all, waiting storeRetryDelayMs before the second
        // try and twice as long before each next; then the sweep stops, interrupted, and the mode
        // stays pending (measured again on resume).
        int storeAttempts = 3;
        int storeRetryDelayMs = 500;
        // After a cancel (or a stop for failures or the store), how long a device may take to
        // end its calls before its connection is closed.
        int stopGraceMs = 10000;
    };

    SweepRunner(Store &store, qint64 sweepId, QVector<SweepDevice> devices, Options options,
                QObject *parent = nullptr);
    ~SweepRunner() override;

    // Predicted seconds of profiling each mode (from a model of the workload, when there is
    // one): time remaining is then the predicted time of what is left, scaled by how the
    // finished modes compared with their predictions. Without it, the pace so far.
    void setPredictedSeconds(std::function<double(const PowerMode &)> predicted)
    {
        m_predicted = std::move(predicted);
    }

    // For adaptive plans: called when every planned item is done, with the sweep so far; the
    // (mode, batch) items it returns are added to the stored plan and measured. Empty: the plan
    // is complete.
    using PlanExtender = std::function<Expected<QVector<PlannedItem>>(const SweepRecord &)>;
    void setPlanExtender(PlanExtender extender) { m_extender = std::move(extender); }

    void start();
    // Stops taking new modes; the ones being measured are stopped too and stay pending.
    void cancel();

    // Measured cost of the workbench per mode: everything but the profile itself (apply,
    // verify, bookkeeping, storage), mean over the modes done so far, in seconds.
    double overheadPerModeSeconds() const;
    // Reboots asked of decreasing-only devices to raise clocks, in this run.
    int plannedReboots() const { return m_plannedReboots; }
    // Why the sweep stopped interrupted because the store could not be written ("store write
    // failed: database is locked"); empty when it never failed.
    const QString &storeFailure() const { return m_storeFailure; }

Q_SIGNALS:
    void progress(const ptwb::SweepProgress &progress);
    // Every event of a profile in flight (power, minibatch, settled: docs/device-protocol.md),
    // with the device and the mode it measures, for live plots.
    void profileEvent(const QString &target, const ptwb::PowerMode &mode, const QString &kind,
                      const QJsonObject &event);
    // A planned item was recorded: done with its stored measurement, or failed (item.reason).
    void itemRecorded(const ptwb::SweepItem &item, const ptwb::Measurement &measurement);
    void message(const QString &text);
    // `complete`: the store holds no pending item of the sweep and marks it done. Otherwise the
    // summary says how many stay pending, and why (a store that could not be written).
    void finished(bool complete, const QString &summary);

private:
    // What one device of the sweep is doing, one state at a time (like ModeApplier::Phase).
    enum class State {
        Working,  // connecting, or taking, applying and profiling modes
        Cooling,  // hotter than the limit: its mode waits until it cools down
        Rebooting,  // a planned reboot to raise clocks: the boot id change to come is expected
        RebootDown,  // the same, with its connection down (said once)
        WaitingForPlan,  // out of modes while an adaptive plan may still grow
        Retired,  // done: out of modes, given up, or cancelled
    };
    struct Worker;

    void connectWorker(Worker &worker);
    void onReady(Worker &worker, const DeviceInfo &info);
    void onDisconnected(Worker &worker, const QString &reason);
    void next(Worker &worker);
    void checkTemperature(Worker &worker);
    int takeNext(Worker &worker);
    void applyCurrent(Worker &worker);
    void rebootToRaise(Worker &worker);
    void reconnectLater(Worker &worker);
    void profileCurrent(Worker &worker);
    void finishItem(Worker &worker, const ProfileResult &result);
    // `output`: the workload's last lines when it was the workload that failed.
    void failItem(Worker &worker, const QString &reason,
                  const QVector<WorkloadOutputLine> &output = {});
    void retryOrFail(Worker &worker, const QString &reason,
                     const QVector<WorkloadOutputLine> &output = {});
    // A workload out of memory: failed at once, and every pending item at that batch or a
    // larger one too (in every mode), without being profiled.
    void failOutOfMemory(Worker &worker, const QString &reason,
                         const QVector<WorkloadOutputLine> &output);
    // Counts a failed mode; after Options::stopAfterFailures in a row, stops the sweep.
    void countFailure(const QString &reason);
    void skipLargerBatches(Worker &worker, int batch);
    // A dropped or silent connection: true when the reply is that (handled by reconnecting).
    bool connectionTrouble(Worker &worker, const DeviceReply &reply);
    void requeueCurrent(Worker &worker);
    // A store write, tried Options::storeAttempts times (it blocks while it waits, as SQLite's
    // own busy wait does). A refusal (ErrorKind::BadInput: the item is not pending any more) is
    // not tried again.
    template<typename Write>
    auto writeToStore(const QString &what, Write write) -> decltype(write());
    // The store could not be written: the worker's mode stays pending and the sweep stops.
    void stopForStore(Worker &worker, const QString &what, const QString &error);
    void noteStoreFailure(const QString &error);
    void stopEveryWorker();
    void retire(Worker &worker, const QString &why);
    void emitProgress(const Worker &worker);
    double remainingSeconds(double elapsed) const;
    bool extendPlan();
    int appendChosenModes();
    void wakeWaiting();
    void maybeFinish();

    Store &m_store;
    SweepStore m_sweeps;
    qint64 m_sweepId;
    Options m_options;
    SweepRecord m_record;
    WorkloadSpec m_workload;
    std::deque<int> m_queue;  // indices into m_record.items, pending, in plan order
    QHash<int, int> m_attempts;  // item index -> unusable profiles so far, in this run
    std::vector<std::unique_ptr<Worker>> m_workers;
    QElapsedTimer m_clock;
    std::function<double(const PowerMode &)> m_predicted;
    PlanExtender m_extender;
    double m_predictedFinished = 0;  // predicted seconds of the modes finished in this run
    double m_predictedQueued = 0;  // predicted seconds of the modes waiting in m_queue
    int m_done = 0;
    int m_failed = 0;
    int m_finishedBefore = 0;  // done or failed in earlier runs (a resumed sweep)
    double m_overheadSeconds = 0;
    int m_overheadSamples = 0;
    int m_plannedReboots = 0;
    int m_failuresInARow = 0;
    QString m_stoppedBecause;  // set when failures in a row stopped the sweep
    QString m_storeFailure;  // set when a store write failed for good
    PlausibleRanges m_ranges;  // of the sweep's device kind: replies outside are refused
    bool m_cancelled = false;
    bool m_stopGraceArmed = false;
    bool m_finished = false;
};

}  // namespace ptwb
