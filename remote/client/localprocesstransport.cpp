#include "localprocesstransport.h"

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
                if (m_closing)
                    reason = QStringLiteral("closed");
                else if (status == QProcess::CrashExit)
                    reason = QStringLiteral("the agent crashed");
                else
                    reason = QStringLiteral("the agent exited (code %1)").arg(exitCode);
                if (!m_closing && !m_log.isEmpty())
                    reason += QStringLiteral(": ") + m_log.constLast();
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
    m_pending.clear();
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

bool LocalProcessTransport::isOpen() const
{
    return m_process.state() == QProcess::Running && !m_finished;
}

void LocalProcessTransport::sendLine(const QByteArray &line)
{
    if (!isOpen())
        return;
    m_process.write(line + '\n');
}

void LocalProcessTransport::readOutput()
{
    m_pending += m_process.readAllStandardOutput();
    qsizetype newline;
    while ((newline = m_pending.indexOf('\n')) >= 0) {
        const QByteArray line = m_pending.left(newline).trimmed();
        m_pending.remove(0, newline + 1);
        if (!line.isEmpty())
            Q_EMIT lineReceived(line);
    }
}

void LocalProcessTransport::readLog()
{
    const QList<QByteArray> lines = m_process.readAllStandardError().split('\n');
    for (const QByteArray &line : lines) {
        const QString text = QString::fromUtf8(line).trimmed();
        if (!text.isEmpty())
            m_log.append(text);
    }
    while (m_log.size() > kLogLines)
        m_log.removeFirst();
}

void LocalProcessTransport::finish(const QString &reason)
{
    if (m_finished)
        return;
    m_finished = true;
    Q_EMIT closed(reason);
}

}  // namespace ptwb
