#include "sshworker.h"

#include "shellquote.h"
#include "sshcancel.h"
#include "sshsession.h"
#include "util/printable.h"

#include <QSocketNotifier>

#include <libssh/server.h>  // ssh_send_keepalive is declared there but works for clients

namespace ptwb {

namespace {

constexpr int kStderrLines = 20;
constexpr int kPollMs = 500;  // catches data libssh buffered while we were writing
constexpr int kCloseGraceMs = 3000;
constexpr int kReadChunk = 16384;

}  // namespace

SshWorker::SshWorker(std::shared_ptr<SshCancel> cancel, InFlight inFlight, QObject *parent)
    : QObject(parent)
    , m_cancel(std::move(cancel))
    , m_inFlight(std::move(inFlight))
    , m_pollTimer(this)  // children, so moveToThread() takes them along
    , m_keepaliveTimer(this)
    , m_graceTimer(this)
{
    m_pollTimer.setInterval(kPollMs);
    connect(&m_pollTimer, &QTimer::timeout, this, &SshWorker::drain);
    connect(&m_keepaliveTimer, &QTimer::timeout, this, &SshWorker::keepaliveTick);
    m_graceTimer.setSingleShot(true);
    connect(&m_graceTimer, &QTimer::timeout, this, [this] { teardown(QStringLiteral("closed")); });
}

SshWorker::~SshWorker()
{
    shutdown();
}

void SshWorker::start(quint64 generation, const SshOptions &options)
{
    if (m_starting)
        return;
    shutdown();
    m_starting = true;
    m_stopAfterStart = false;
    startSteps(generation, options);
    m_starting = false;
    if (m_stopAfterStart)  // a finish() or shutdown() came while a prompt waited
        shutdown();
}

void SshWorker::startSteps(quint64 generation, const SshOptions &options)
{
    m_generation = generation;
    m_options = options;
    m_active = true;
    m_closing = false;
    m_stdout = LineReader();
    m_stderr = LineReader(LineReader::OverLong::Truncate, kMaxLogLineBytes);
    m_stderrLines.clear();
    m_paused = false;
    m_session = std::make_unique<SshSession>(options, m_cancel);

    if (Status connected = m_session->connect(); !connected)
        return teardown(connected.error(), m_session->hostKeyRejected());
    if (m_cancel->isRequested())
        return teardown(QStringLiteral("closed"));
    log(QStringLiteral("connected to %1").arg(m_session->target()));

    QString directory;
    if (!options.launch.files.isEmpty()) {
        Expected<SshSession::Upload> uploaded = m_session->upload(options.launch.files);
        if (!uploaded)
            return teardown(uploaded.error());
        directory = uploaded->directory;
        log(QStringLiteral("%1: %2 file(s) uploaded, %3 already there")
                .arg(directory)
                .arg(uploaded->uploaded)
                .arg(uploaded->skipped));
        if (m_cancel->isRequested())
            return teardown(QStringLiteral("closed"));
    }
    m_argv.clear();
    for (QString token : options.launch.argv)
        m_argv << token.replace(QLatin1String("{dir}"), directory);
    if (m_argv.isEmpty())
        return teardown(QStringLiteral("nothing to run on %1").arg(m_session->target()));
    if (Status started = m_session->exec(ShellQuote::join(m_argv)); !started)
        return teardown(started.error());

    m_notifier = new QSocketNotifier(ssh_get_fd(m_session->handle()), QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &SshWorker::drain);
    m_pollTimer.start();
    m_keepaliveTimer.start(qMax(100, options.keepaliveIntervalMs / 2));
    m_lastBytes = m_session->bytesReceived();
    m_sinceActivity.start();
    Q_EMIT opened(m_generation);
    drain();
}

void SshWorker::send(const QByteArray &line)
{
    if (m_starting || !m_session || !m_session->channel() || m_closing)
        return;
    const QByteArray data = line + '\n';
    if (ssh_channel_write(m_session->channel(), data.constData(), uint32_t(data.size())) !=
        int(data.size()))
        return lost(m_session->libsshError());
    drain();  // the write may have read packets into libssh's buffers
}

void SshWorker::finish()
{
    if (m_starting) {
        m_stopAfterStart = true;
        return;
    }
    if (!m_session)
        return;
    m_closing = true;
    if (m_session->channel())
        ssh_channel_send_eof(m_session->channel());
    m_graceTimer.start(kCloseGraceMs);
    drain();
}

void SshWorker::shutdown()
{
    if (m_starting)
        m_stopAfterStart = true;
    else if (m_session)
        teardown(QStringLiteral("closed"));
}

void SshWorker::abort(const QString &reason)
{
    if (m_starting) {
        m_stopAfterStart = true;
        return;
    }
    if (m_session)
        teardown(reason);
}

void SshWorker::resume()
{
    if (m_paused)
        drain();
}

void SshWorker::noteActivity()
{
    if (!m_session)
        return;
    const quint64 bytes = m_session->bytesReceived();
    if (bytes != m_lastBytes) {
        m_lastBytes = bytes;
        m_sinceActivity.restart();
    }
}

void SshWorker::log(const QString &text)
{
    m_inFlight->fetch_add(1);  // the transport counts every line down
    Q_EMIT logMessage(m_generation, text);
}

bool SshWorker::paused()
{
    // Backpressure: while the transport has kMaxInFlight lines to handle, nothing more is read
    // (not even to find out whether there is more: the notifier would fire in a loop).
    m_paused = m_inFlight->load() >= kMaxInFlight;
    if (m_notifier)
        m_notifier->setEnabled(!m_paused);
    return m_paused;
}

bool SshWorker::deliver(bool isStderr)
{
    LineReader &reader = isStderr ? m_stderr : m_stdout;
    while (reader.hasProblem()) {
        const LineReader::Problem problem = reader.takeProblem();
        if (!isStderr) {
            m_inFlight->fetch_add(1);
            Q_EMIT lineDiscarded(m_generation, problem.bytes, problem.prefix);
        }
    }
    while (reader.hasLine()) {
        const QByteArray line = reader.takeLine();
        if (isStderr) {
            const QString text = QString::fromUtf8(line);
            m_stderrLines.append(text);
            while (m_stderrLines.size() > kStderrLines)
                m_stderrLines.removeFirst();
            log(text);
        } else {
            m_inFlight->fetch_add(1);
            Q_EMIT lineReceived(m_generation, line);
        }
    }
    return m_session && m_session->channel();
}

void SshWorker::drain()
{
    if (!m_session || !m_session->channel())
        return;
    ssh_channel channel = m_session->channel();
    char buffer[kReadChunk];
    for (int isStderr : {0, 1}) {
        LineReader &reader = isStderr ? m_stderr : m_stdout;
        for (;;) {
            if (paused())
                return;  // resume() or the poll timer goes on
            const int n = ssh_channel_read_nonblocking(
                channel, buffer, uint32_t(qMin<qsizetype>(sizeof buffer, reader.room())), isStderr);
            if (n == SSH_ERROR)
                return lost(m_session->libsshError());
            if (n <= 0)
                break;  // nothing now, or SSH_EOF
            reader.append(buffer, n);
            if (!deliver(isStderr))
                return;
        }
    }
    noteActivity();
    if (!ssh_is_connected(m_session->handle()))
        return lost(m_session->libsshError());
    if (ssh_channel_is_eof(channel) || ssh_channel_is_closed(channel))
        remoteEnded();
}

void SshWorker::keepaliveTick()
{
    if (!m_session)
        return;
    noteActivity();
    const qint64 silentMs = m_sinceActivity.elapsed();
    const qint64 limitMs = qint64(m_options.keepaliveIntervalMs) * m_options.keepaliveMaxMissed;
    if (silentMs >= limitMs) {
        return lost(QStringLiteral("no answer for %1 s (%2 keepalives missed)")
                        .arg(silentMs / 1000)
                        .arg(m_options.keepaliveMaxMissed));
    }
    if (silentMs < m_options.keepaliveIntervalMs)
        return;  // traffic flows; no keepalive needed
    // keepalive@openssh.com with want-reply: the server must answer, and any answer moves the
    // received-bytes counter. Non-blocking so a dead peer cannot stall this thread. libssh sends
    // a new request only once the previous one was answered, hence two calls: the first
    // collects an answer that came, the second sends.
    ssh_session session = m_session->handle();
    ssh_set_blocking(session, 0);
    ssh_send_keepalive(session);
    ssh_send_keepalive(session);
    ssh_set_blocking(session, 1);
}

void SshWorker::remoteEnded()
{
    if (!m_session)
        return;
    // Blocks until the exit status arrives (with the channel's close at the latest).
    const int exitStatus = m_closing ? 0 : ssh_channel_get_exit_status(m_session->channel());
    m_stdout.finish();  // a last line without its newline
    m_stderr.finish();
    deliver(false);
    deliver(true);

    QString reason;
    if (m_closing) {
        reason = QStringLiteral("closed");
    } else {
        reason = exitStatus < 0 ? QStringLiteral("the agent on %1 ended without an exit status")
                                      .arg(m_session->target())
                                : QStringLiteral("the agent on %1 exited (code %2)")
                                      .arg(m_session->target())
                                      .arg(exitStatus);
        if (!m_stderrLines.isEmpty())
            reason += QStringLiteral(": ") + printable(m_stderrLines.constLast(), 300);
    }
    teardown(reason);
}

void SshWorker::lost(const QString &detail)
{
    if (!m_session)
        return;
    if (m_closing)
        return teardown(QStringLiteral("closed"));
    teardown(QStringLiteral("connection lost: %1: %2").arg(m_session->target(), detail));
}

void SshWorker::teardown(const QString &reason, bool hostKeyRejected)
{
    m_pollTimer.stop();
    m_keepaliveTimer.stop();
    m_graceTimer.stop();
    delete m_notifier;
    m_notifier = nullptr;
    if (m_session) {
        m_session->disconnect();
        m_session.reset();
    }
    if (m_active) {
        m_active = false;
        Q_EMIT closed(m_generation, reason, hostKeyRejected);
    }
}

}  // namespace ptwb
