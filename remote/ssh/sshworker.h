#pragma once

#include "sshoptions.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QTimer>

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
    explicit SshWorker(std::shared_ptr<SshCancel> cancel, QObject *parent = nullptr);
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

Q_SIGNALS:
    void opened(quint64 generation);
    void lineReceived(quint64 generation, const QByteArray &line);
    void logMessage(quint64 generation, const QString &text);
    // hostKeyRejected: the connection failed at the host key (SshSession::hostKeyRejected()).
    void closed(quint64 generation, const QString &reason, bool hostKeyRejected);

private:
    void startSteps(quint64 generation, const SshOptions &options);
    void drain();
    void keepaliveTick();
    void remoteEnded();
    void lost(const QString &detail);
    void teardown(const QString &reason, bool hostKeyRejected = false);
    void noteActivity();

    std::shared_ptr<SshCancel> m_cancel;
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
    QByteArray m_stdout;  // a partial line
    QByteArray m_stderr;  // a partial line
    QStringList m_stderrLines;  // the last ones, for error messages
    bool m_active = false;
    bool m_closing = false;
    bool m_starting = false;  // inside start()
    bool m_stopAfterStart = false;
};

}  // namespace ptwb
