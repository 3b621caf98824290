#include "localprocesstransport.h"

#include "util/printable.h"

#include <QPointer>
#include <QTimer>

namespace ptwb {

namespace {

constexpr int kLogLines = 50;
constexpr int kStopGraceMs = 2000;
constexpr int kCloseGraceMs = 10000;

}  // namespace

LocalProcessTransport::LocalProcessTransport(QString program, QStringList arguments,
                                             QString description, QObject *parent)
    : Transport(parent)
    , m_program(std::move(program))
    , m_arguments(std::move(arguments))
    , m_description(std::move(description))
{
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    connect(&m_process, &QProcess::started, this, &Transport::opened);
    connect(&m_process, &QProcess::readyReadStandardOutput, this,
            &LocalProcessTransport::readOutput);
    connect(&m_process, &QProcess::readyReadStandardError, this, &LocalProcessTransport::readLog);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            finish(
                QStringLiteral("could not start %1: %2").arg(m_program, m_process.errorString()));
    });
    connect(&m_process, &QProcess::finished, this,
            [this](int exitCode, QProcess::ExitStatus status) {
                readOutput();
                readLog();
                QString reason;
                if (!m_dropReason.isEmpty())
                    reason = m_dropReason;
                else if (m_closing)
                    reason = QStringLiteral("closed");
                else if (status == QProcess::CrashExit)
                    reason = QStringLiteral("the agent crashed");
                else
                    reason = QStringLiteral("the agent exited (code %1)").arg(exitCode);
                if (!m_closing && m_dropReason.isEmpty() && !m_log.isEmpty())
                    reason += QStringLiteral(": ") + printable(m_log.constLast(), 300);
                finish(reason);
            });
}

LocalProcessTransport::~LocalProcessTransport()
{
    // No signals to a half-destroyed receiver while the child is reaped.
    m_process.disconnect(this);
    if (m_process.state() != QProcess::NotRunning) {
        m_process.closeWriteChannel();
        if (!m_process.waitForFinished(kStopGraceMs)) {
            m_process.kill();
            m_process.waitForFinished(kStopGraceMs);
        }
    }
}

void LocalProcessTransport::open()
{
    m_closing = false;
    m_finished = false;
    m_dropReason.clear();
    m_reader = LineReader();
    m_logReader = LineReader(LineReader::OverLong::Truncate, kMaxLogLineBytes);
    m_process.start(m_program, m_arguments, QIODevice::ReadWrite | QIODevice::Unbuffered);
}

void LocalProcessTransport::close()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_closing = true;
    // EOF on stdin is the agent's signal to finish. One that does not within the grace period
    // is hung (or waiting for an armed revert, which the next agent to start carries out if
    // this one is gone: docs/device-protocol.md), and is killed so that closed() follows.
    m_process.closeWriteChannel();
    QTimer::singleShot(kCloseGraceMs, this, [this] {
        if (m_process.state() != QProcess::NotRunning && m_closing)
            m_process.kill();
    });
}

void LocalProcessTransport::drop(const QString &reason)
{
    if (m_finished || !m_dropReason.isEmpty())
        return;
    m_dropReason = reason.isEmpty() ? QStringLiteral("dropped") : reason;
    if (m_process.state() == QProcess::NotRunning) {
        QTimer::singleShot(0, this, [this] { finish(m_dropReason); });
        return;
    }
    // Not another byte: what it writes now would only be thrown away. No grace either: an
    // armed revert is the helper's watchdog's, not this process's (docs/device-protocol.md).
    m_process.closeReadChannel(QProcess::StandardOutput);
    m_process.closeReadChannel(QProcess::StandardError);
    m_process.kill();
}

bool LocalProcessTransport::isOpen() const
{
    return m_process.state() == QProcess::Running && !m_finished && m_dropReason.isEmpty();
}

void LocalProcessTransport::sendLine(const QByteArray &line)
{
    if (!isOpen())
        return;
    m_process.write(line + '\n');
}

void LocalProcessTransport::readOutput()
{
    // Bounded (LineReader): a chunk at a time, each line handed on (DeviceClient takes it at
    // once, on this thread) before the next chunk is read; an over-long line is thrown away.
    const QPointer<LocalProcessTransport> alive(this);
    while (alive && m_dropReason.isEmpty() && m_reader.wantsInput()) {
        const QByteArray chunk = m_process.read(m_reader.room());
        if (chunk.isEmpty()) {
            if (m_process.state() == QProcess::NotRunning)
                m_reader.finish();  // a last line cut off mid-write is dropped
        } else {
            m_reader.append(chunk);
        }
        while (alive && m_dropReason.isEmpty() && m_reader.hasProblem()) {
            const LineReader::Problem problem = m_reader.takeProblem();
            Q_EMIT lineDiscarded(problem.bytes, problem.prefix);
        }
        while (alive && m_dropReason.isEmpty() && m_reader.hasLine())
            Q_EMIT lineReceived(m_reader.takeLine());
        if (chunk.isEmpty())
            break;
    }
}

void LocalProcessTransport::readLog()
{
    if (!m_dropReason.isEmpty())
        return;
    m_logReader.append(m_process.readAllStandardError());
    if (m_process.state() == QProcess::NotRunning)
        m_logReader.finish();
    while (m_logReader.hasProblem())
        m_logReader.takeProblem();  // a long log line: its first kMaxLogLineBytes are kept
    while (m_logReader.hasLine()) {
        const QString text = QString::fromUtf8(m_logReader.takeLine());
        m_log.append(text);
        while (m_log.size() > kLogLines)
            m_log.removeFirst();
    }
}

void LocalProcessTransport::finish(const QString &reason)
{
    if (m_finished)
        return;
    m_finished = true;
    Q_EMIT closed(reason);
}

}  // namespace ptwb
