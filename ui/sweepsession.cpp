#include "sweepsession.h"

#include "store/store.h"
#include "wire.h"

#include <QRandomGenerator>
#include <QTimer>

#include <cmath>
#include <optional>

namespace ptwb::ui {

namespace {
constexpr int kUpdateIntervalMs = 100;  // progress and live points reach the GUI this often
// A sweep message carries device text (a reason, a protocol warning): this much of it is shown.
constexpr int kMaxMessageChars = 2000;
// A live point beyond this (or NaN, infinite) is no reading: not plotted.
constexpr double kMaxLiveValue = 1e12;

bool plottable(double value)
{
    return std::isfinite(value) && std::abs(value) <= kMaxLiveValue;
}
}  // namespace

// The session's other half, on the sweep thread: owns the store connection and the runner.
// Talks back only by posting functors to the session (nothing here waits for the GUI).
class SweepWorker : public QObject
{
public:
    explicit SweepWorker(SweepSession *session)
        : m_session(session)
    {
        m_flush.setInterval(kUpdateIntervalMs);
        connect(&m_flush, &QTimer::timeout, this, &SweepWorker::flush);
    }

    ~SweepWorker() override
    {
        if (m_runner) {
            // The window closes mid-sweep: what was measured is stored, the rest resumes later.
            if (const Status marked =
                    SweepStore(*m_store).setState(m_sweepId, SweepState::Interrupted);
                !marked)
                qWarning("%s", qUtf8Printable(marked.error()));
            delete m_runner;  // before the store it writes to
        }
    }

    void start(const QString &path, const workflows::DeviceEndpoint &device,
               const workflows::SweepRequest &request)
    {
        if (!openStore(path))
            return;
        Expected<qint64> created = workflows::planSweep(*m_store, request, {device});
        if (!created) {
            fail(0, created.error());
            return;
        }
        run(*created, device, request.stopAfterFailures);
    }

    void resume(const QString &path, const workflows::DeviceEndpoint &device, qint64 sweepId,
                int stopAfterFailures)
    {
        if (openStore(path))
            run(sweepId, device, stopAfterFailures);
    }

    // Ends the run, leaving the sweep in `state` (paused or cancelled). Without a run, a sweep
    // that is paused or was interrupted can still be cancelled: only its state changes.
    void stop(SweepState state)
    {
        if (m_runner) {
            m_stopState = state;
            m_runner->cancel();  // finished() follows once the mode in flight has stopped
            return;
        }
        if (state != SweepState::Cancelled || m_sweepId <= 0 || !openStore(m_storePath))
            return;
        const Status changed = SweepStore(*m_store).setState(m_sweepId, state);
        post([state, id = m_sweepId,
              error = changed ? QString() : changed.error()](SweepSession &s) {
            Q_EMIT s.stopped(id, error.isEmpty() ? state : SweepState::Failed,
                             error.isEmpty()
                                 ? QStringLiteral("sweep %1 %2").arg(id).arg(sweepStateText(state))
                                 : error);
        });
    }

private:
    template<typename Work>
    void post(Work work)
    {
        SweepSession *session = m_session;
        QMetaObject::invokeMethod(
            session, [session, work = std::move(work)] { work(*session); }, Qt::QueuedConnection);
    }

    bool openStore(const QString &path)
    {
        if (m_store && path == m_storePath)
            return true;
        m_store.reset();
        Expected<std::unique_ptr<Store>> store = Store::open(path);
        if (!store) {
            fail(0, store.error());
            return false;
        }
        m_store = std::move(store).value();
        m_storePath = path;
        return true;
    }

    void fail(qint64 sweepId, const QString &why)
    {
        post([sweepId, why](SweepSession &s) {
            Q_EMIT s.stopped(sweepId, SweepState::Failed, why);
        });
    }

    void run(qint64 sweepId, const workflows::DeviceEndpoint &device, int stopAfterFailures)
    {
        Expected<SweepRecord> record = SweepStore(*m_store).load(sweepId);
        if (!record) {
            fail(sweepId, record.error());
            return;
        }
        m_sweepId = sweepId;
        m_stopState.reset();
        m_live = SweepLive();
        m_liveMode = PowerMode();
        m_lastPowerT = -1;
        m_lastIndex = -1;
        m_liveDirty = m_progressDirty = m_itemJustRecorded = false;
        Expected<std::unique_ptr<SweepRunner>> runner =
            workflows::sweepRunner(*m_store, sweepId, {device}, this, stopAfterFailures);
        if (!runner) {
            fail(sweepId, runner.error());
            return;
        }
        m_runner = runner->release();  // a child: deleted before m_store
        connect(m_runner, &SweepRunner::progress, this, [this](const SweepProgress &p) {
            m_progress = p;
            m_progressDirty = true;
            if (m_itemJustRecorded) {  // the counts changed: no lag behind the table
                m_itemJustRecorded = false;
                flush();
            }
        });
        connect(m_runner, &SweepRunner::profileEvent, this, &SweepWorker::onEvent);
        connect(m_runner, &SweepRunner::itemRecorded, this,
                [this](const SweepItem &item, const Measurement &m) {
                    m_itemJustRecorded = true;  // its progress follows at once
                    post([item, m](SweepSession &s) { Q_EMIT s.itemRecorded(item, m); });
                });
        // The latest message goes out with the next flush: a device sending a bad line after
        // another queues one message at a time to the GUI thread, not one per line.
        connect(m_runner, &SweepRunner::message, this, [this](const QString &text) {
            m_message = text.left(kMaxMessageChars);
            m_messageDirty = true;
        });
        connect(m_runner, &SweepRunner::finished, this, &SweepWorker::onFinished);
        post([record = *record](SweepSession &s) {
            s.m_sweepId = record.id;
            Q_EMIT s.started(record);
        });
        m_flush.start();
        m_runner->start();
    }

    void onEvent(const QString &target, const PowerMode &mode, const QString &kind,
                 const QJsonObject &event)
    {
        const double t = event.value(QLatin1String("t_s")).toDouble();
        const int index = event.value(QLatin1String("index")).toInt(-1);
        const bool isPower = kind == QLatin1String("power");
        const bool isMinibatch = kind == QLatin1String("minibatch");
        // A new profile: another mode or device, or the same mode measured again (its clock and
        // minibatch count start over).
        if (!(mode == m_liveMode) || target != m_liveTarget || (isPower && t < m_lastPowerT) ||
            (isMinibatch && index <= m_lastIndex)) {
            m_live = SweepLive();
            m_live.restarted = true;
            m_live.target = m_liveTarget = target;
            m_live.mode = m_liveMode = mode;
            m_lastPowerT = -1;
            m_lastIndex = -1;
        }
        if (isPower) {
            m_lastPowerT = t;
            const double watts = event.value(QLatin1String("total_w")).toDouble();
            if (plottable(t) && plottable(watts))
                m_live.powerW.append({t, watts});
        } else if (isMinibatch) {
            m_lastIndex = index;
            const double ms = event.value(QLatin1String("ms")).toDouble();
            if (plottable(ms))
                m_live.minibatchMs.append({double(index), ms});
        }
        m_liveDirty = true;
    }

    void flush()
    {
        if (m_progressDirty)
            post([p = m_progress](SweepSession &s) { Q_EMIT s.progress(p); });
        if (m_liveDirty)
            post([live = m_live](SweepSession &s) { Q_EMIT s.live(live); });
        if (m_messageDirty)
            post([text = m_message](SweepSession &s) { Q_EMIT s.message(text); });
        m_progressDirty = m_liveDirty = m_messageDirty = false;
        m_live.restarted = false;
        m_live.minibatchMs.clear();
        m_live.powerW.clear();
    }

    void onFinished(bool complete, const QString &summary)
    {
        flush();
        m_flush.stop();
        SweepState state = complete ? SweepState::Done : SweepState::Interrupted;
        QString text = summary;
        if (!complete && m_stopState) {
            state = *m_stopState;
            if (Status changed = SweepStore(*m_store).setState(m_sweepId, state); !changed)
                text = changed.error();
        }
        m_runner->deleteLater();  // not inside its own signal
        m_runner = nullptr;
        post([id = m_sweepId, state, text](SweepSession &s) { Q_EMIT s.stopped(id, state, text); });
    }

    SweepSession *const m_session;  // outlives this object: its destructor joins the thread
    std::unique_ptr<Store> m_store;
    QString m_storePath;
    SweepRunner *m_runner = nullptr;  // a child, deleted before m_store
    qint64 m_sweepId = 0;
    std::optional<SweepState> m_stopState;  // paused or cancelled, when asked to stop
    QTimer m_flush {this};
    SweepProgress m_progress;
    bool m_progressDirty = false;
    bool m_itemJustRecorded = false;
    SweepLive m_live;
    bool m_liveDirty = false;
    QString m_message;
    bool m_messageDirty = false;
    QString m_liveTarget;
    PowerMode m_liveMode;
    double m_lastPowerT = -1;
    int m_lastIndex = -1;
};

SweepSession::SweepSession(QObject *parent)
    : QObject(parent)
    , m_worker(new SweepWorker(this))
{
    m_thread.setObjectName(QStringLiteral("sweep"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Kept up to date here, before anyone connected to the signals hears of it.
    connect(this, &SweepSession::stopped, this,
            [this](qint64 id, SweepState state, const QString &) {
                if (id > 0)
                    m_sweepId = id;
                m_state = state;
                m_running = false;
            });
    m_thread.start();
}

SweepSession::~SweepSession()
{
    m_thread.quit();
    m_thread.wait();
}

void SweepSession::launch(const std::function<void(SweepWorker &)> &work)
{
    SweepWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, work] { work(*worker); }, Qt::QueuedConnection);
}

void SweepSession::start(const workflows::SweepRequest &request)
{
    if (m_running)
        return;
    m_running = true;
    m_state = SweepState::Running;
    workflows::SweepRequest r = request;
    m_stopAfterFailures = r.stopAfterFailures;
    if (r.seed == 0)
        r.seed = QRandomGenerator::global()->generate64();  // another sweep, other modes
    launch([path = m_databasePath, device = m_device, r](SweepWorker &w) {
        w.start(path, device, r);
    });
}

void SweepSession::resume(qint64 sweepId)
{
    if (m_running || sweepId <= 0)
        return;
    m_running = true;
    m_state = SweepState::Running;
    launch([path = m_databasePath, device = m_device, sweepId, stopAfter = m_stopAfterFailures](
               SweepWorker &w) { w.resume(path, device, sweepId, stopAfter); });
}

void SweepSession::pause()
{
    if (m_running)
        launch([](SweepWorker &w) { w.stop(SweepState::Paused); });
}

void SweepSession::cancel()
{
    const bool resumable = m_state == SweepState::Paused || m_state == SweepState::Interrupted;
    if (m_running || resumable)
        launch([](SweepWorker &w) { w.stop(SweepState::Cancelled); });
}

}  // namespace ptwb::ui
