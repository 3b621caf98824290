#pragma once

#include "linereader.h"
#include "sshoptions.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <atomic>
#include <memory>

class QSocketNotifier;

namespace ptwb {

class SshCancel;
class SshSession;

// SshTransport's other half: lives on the transport's worker thread and makes every libssh call
// there. Reads are event-driven (a socket notifier on the session's descriptor, plus a slow
// timer for data libssh buffered during a write); a keepalive timer watches the connection.
// Every signal carries the generation of the open() it belongs to, so the transport can drop
// stale ones. Private to remote/ssh.
class SshWorker : public QObject
{
    Q_OBJECT

public:
    // Lines emitted and not yet handled by the transport (it counts them down): while
    // kMaxInFlight wait, the worker reads nothing more (backpressure; the SSH window then fills
    // and the server stops sending), and resume() goes on.
    using InFlight = std::shared_ptr<std::atomic<int>>;
    static constexpr int kMaxInFlight = 256;

    SshWorker(std::shared_ptr<SshCancel> cancel, InFlight inFlight, QObject *parent = nullptr);
    ~SshWorker() override;

    // Connects, verifies the host key, authenticates, uploads, execs; then opened() or closed().
    // While a prompt waits for its answer this thread keeps running its event loop (see
    // SshPromptWait), so the calls below may arrive meanwhile: send() is dropped then (nothing is
    // open yet), finish() and shutdown() close the connection once start() is done (the cancel
    // the transport requested before sending them usually ends start() first).
    void start(quint64 generation, const SshOptions &options);
    void send(const QByteArray &line);
    // EOF on the agent's stdin (it finishes, possibly after an armed revert), a short grace for
    // it to exit, then the connection closes: closed("closed").
    void finish();
    // Drops the connection at once (the transport is going away).
    void shutdown();
    // Drops the connection at once and reports closed(reason): the device misbehaved.
    void abort(const QString &reason);
    // The transport caught up with the lines: read again.
    void resume();

Q_SIGNALS:
    void opened(quint64 generation);
    void lineReceived(quint64 generation, const QByteArray &line);
    void lineDiscarded(quint64 generation, qint64 bytes, const QString &prefix);
    void logMessage(quint64 generation, const QString &text);
    // hostKeyRejected: the connection failed at the host key (SshSession::hostKeyRejected()).
    void closed(quint64 generation, const QString &reason, bool hostKeyRejected);

private:
    void startSteps(quint64 generation, const SshOptions &options);
    void drain();
    bool deliver(bool isStderr);
    void log(const QString &text);
    bool paused();
    void keepaliveTick();
    void remoteEnded();
    void lost(const QString &detail);
    void teardown(const QString &reason, bool hostKeyRejected = false);
    void noteActivity();

    std::shared_ptr<SshCancel> m_cancel;
    InFlight m_inFlight;
    std::unique_ptr<SshSession> m_session;
    QSocketNotifier *m_notifier = nullptr;
    QTimer m_pollTimer;
    QTimer m_keepaliveTimer;
    QTimer m_graceTimer;
    QElapsedTimer m_sinceActivity;
    quint64 m_lastBytes = 0;
    quint64 m_generation = 0;
    SshOptions m_options;
    QStringList m_argv;  // the command as run ({dir} replaced)
    LineReader m_stdout;
    LineReader m_stderr {LineReader::OverLong::Truncate, kMaxLogLineBytes};
    QStringList m_stderrLines;  // the last ones, for error messages
    bool m_active = false;
    bool m_closing = false;
    bool m_starting = false;  // inside start()
    bool m_stopAfterStart = false;
    bool m_paused = false;

    static constexpr qsizetype kMaxLogLineBytes = 4096;
};

}  // namespace ptwb
