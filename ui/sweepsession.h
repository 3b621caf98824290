#pragma once

#include "deviceendpoint.h"
#include "store/measurement.h"
#include "store/sweepstore.h"
#include "sweeplaunch.h"
#include "sweeprunner.h"
#include "util/expected.h"

#include <QObject>
#include <QPointF>
#include <QThread>
#include <QVector>

#include <functional>

namespace ptwb::ui {

class SweepWorker;

// Events of the profile in flight since the last update (at most ten updates a second).
struct SweepLive
{
    QString target;
    PowerMode mode;
    bool restarted = false;  // a new profile began: the earlier points were another run
    QVector<QPointF> minibatchMs;  // (minibatch index, ms)
    QVector<QPointF> powerW;  // (device seconds since the profile began, W)
};

// Runs sweeps on a thread of their own: the SweepRunner, its store connection and its device
// connections all live there (SQLite writes and process I/O never touch the GUI thread), and
// everything comes back as signals on the session's thread. Pause stops the runner (the modes in
// flight stay pending) and marks the sweep paused; resume is a new runner on the same sweep, as
// `ptwb sweep --resume`; cancel stops it for good and marks it cancelled.
class SweepSession : public QObject
{
    Q_OBJECT

public:
    explicit SweepSession(QObject *parent = nullptr);
    // Stops a running sweep (what was measured is stored, the rest stays pending and the sweep
    // is marked interrupted) and joins the thread: the only wait on it.
    ~SweepSession() override;

    void setDatabasePath(const QString &path) { m_databasePath = path; }
    const QString &databasePath() const { return m_databasePath; }
    // The device the sweeps run on (DeviceEndpoint::connect is called on the sweep thread for
    // every (re)connect).
    void setDevice(const workflows::DeviceEndpoint &device) { m_device = device; }
    const workflows::DeviceEndpoint &device() const { return m_device; }
    bool isRunning() const { return m_running; }
    // After this many failed modes in a row a run stops, resumable (0: never); start() takes
    // the request's, resume() the last one set.
    void setStopAfterFailures(int count) { m_stopAfterFailures = count; }
    // The sweep of the last run, and its state: running, or as stopped() reported it
    // (Planned before any run).
    qint64 sweepId() const { return m_sweepId; }
    SweepState state() const { return m_state; }

public Q_SLOTS:
    void start(const ptwb::workflows::SweepRequest &request);
    void resume(qint64 sweepId);
    void pause();
    void cancel();

Q_SIGNALS:
    // A run began: the sweep as stored (its plan and what earlier runs measured).
    void started(const ptwb::SweepRecord &record);
    void progress(const ptwb::SweepProgress &progress);
    void live(const ptwb::ui::SweepLive &live);
    void itemRecorded(const ptwb::SweepItem &item, const ptwb::Measurement &measurement);
    void message(const QString &text);
    // The run ended; `state` is the sweep's state in the store: done, paused, cancelled,
    // interrupted (the device was lost: resumable), or failed (it could not start; sweepId may
    // be 0).
    void stopped(qint64 sweepId, ptwb::SweepState state, const QString &summary);

private:
    friend class SweepWorker;
    void launch(const std::function<void(SweepWorker &)> &work);

    QThread m_thread;
    SweepWorker *m_worker = nullptr;  // lives on m_thread
    QString m_databasePath;
    workflows::DeviceEndpoint m_device;
    qint64 m_sweepId = 0;
    SweepState m_state = SweepState::Planned;
    bool m_running = false;
    int m_stopAfterFailures = workflows::SweepRequest::kDefaultStopAfterFailures;
};

}  // namespace ptwb::ui
