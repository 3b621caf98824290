#pragma once

#include "sshoptions.h"
#include "transport.h"

#include <QStringList>

#include <atomic>
#include <memory>

class QThread;

namespace ptwb {

class SshCancel;
class SshWorker;

// The agent over SSH (docs/ssh.md): a Transport whose libssh session lives on a worker thread of
// its own. open() connects, checks the host key (asking SshOptions::prompts about an unknown
// host, refusing a changed one), authenticates, uploads the launch files and execs the command;
// stdout lines come back as lineReceived(), stderr goes to logMessage() and into error texts.
// Nothing here blocks the calling (GUI) thread, the destructor included (see SshThreads); the
// prompts are asked from the worker thread, which keeps running its event loop while it waits.
//
// A dead connection is reported as closed("connection lost: ...") after keepaliveIntervalMs x
// keepaliveMaxMissed without a byte from the server; a host key that was refused or could not
// be confirmed is reported as closed(<the host-key error>) with hostKeyRejected() true. close()
// sends EOF to the agent, waits briefly for it to exit and closes; during open() it cancels the
// attempt, a question waiting for its answer at once: closed("connecting to ... was cancelled
// ..."). open() after closed() connects again from scratch.
class SshTransport : public Transport
{
    Q_OBJECT

public:
    explicit SshTransport(SshOptions options, QObject *parent = nullptr);
    ~SshTransport() override;

    // Does nothing unless closed (a previous open() has reported closed()).
    void open() override;
    void close() override;
    bool isOpen() const override { return m_state == State::Open; }
    void sendLine(const QByteArray &line) override;
    void drop(const QString &reason) override;
    QString description() const override;

    const SshOptions &options() const { return m_options; }
    // Whether the last closed() was a host key that could not be verified: unknown and not
    // accepted (or no one to ask), changed, of another type, or not checkable. That is no lost
    // connection: connecting again cannot fix it and must not be tried as if it could
    // (SweepRunner gives the device up at once). Reset by open().
    bool hostKeyRejected() const { return m_hostKeyRejected; }
    bool lastCloseIsFinal() const override { return m_hostKeyRejected || m_dropped; }
    // Recent log lines: what was connected and uploaded, the agent's stderr.
    QStringList recentLog() const { return m_log; }

Q_SIGNALS:
    void logMessage(const QString &text);

private:
    enum class State { Closed, Opening, Open, Closing };

    void handleOpened(quint64 generation);
    void handleLine(quint64 generation, const QByteArray &line);
    void handleLog(quint64 generation, const QString &text);
    void handleDiscarded(quint64 generation, qint64 bytes, const QString &prefix);
    void handled();
    void handleClosed(quint64 generation, const QString &reason, bool hostKeyRejected);

    SshOptions m_options;
    QThread *m_thread = nullptr;
    SshWorker *m_worker = nullptr;
    std::shared_ptr<SshCancel> m_cancel;
    quint64 m_generation = 0;
    State m_state = State::Closed;
    bool m_hostKeyRejected = false;
    bool m_dropped = false;
    QStringList m_log;
    std::shared_ptr<std::atomic<int>> m_inFlight;  // lines the worker sent, not handled yet
};

}  // namespace ptwb
