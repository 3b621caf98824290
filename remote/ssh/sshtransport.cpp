#include "sshtransport.h"

#include "hostkeycheck.h"
#include "sshworker.h"

#include <QThread>

namespace ptwb {

namespace {

constexpr int kLogLines = 50;
constexpr int kShutdownWaitMs = 3000;

}  // namespace

SshTransport::SshTransport(SshOptions options, QObject *parent)
    : Transport(parent)
    , m_options(std::move(options))
    , m_cancel(std::make_shared<std::atomic<bool>>(false))
{
    if (!m_options.prompts)
        m_options.prompts = std::make_shared<RefusingSshPrompts>();
    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("ssh %1").arg(m_options.host));
    m_worker = new SshWorker(m_cancel);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &SshWorker::opened, this, &SshTransport::handleOpened);
    connect(m_worker, &SshWorker::lineReceived, this, &SshTransport::handleLine);
    connect(m_worker, &SshWorker::logMessage, this, &SshTransport::handleLog);
    connect(m_worker, &SshWorker::closed, this, &SshTransport::handleClosed);
    m_thread->start();
}

SshTransport::~SshTransport()
{
    m_worker->disconnect(this);
    m_cancel->store(true);
    SshWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker] { worker->shutdown(); }, Qt::QueuedConnection);
    m_thread->quit();
    if (m_thread->wait(kShutdownWaitMs)) {
        delete m_thread;
    } else {
        // The worker is inside a blocking call (a connect, or a prompt waiting for a person):
        // let the thread end by itself and clean up after it, rather than block the GUI.
        QThread *thread = m_thread;
        connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    }
}

QString SshTransport::description() const
{
    if (!m_options.description.isEmpty())
        return m_options.description;
    const QString where =
        HostKeyCheck::target(m_options.host, m_options.port > 0 ? m_options.port : 22);
    return m_options.user.isEmpty() ? where : m_options.user + QLatin1Char('@') + where;
}

void SshTransport::open()
{
    if (m_state != State::Closed)
        return;
    m_state = State::Opening;
    m_hostKeyRejected = false;
    m_cancel->store(false);
    const quint64 generation = ++m_generation;
    SshWorker *worker = m_worker;
    const SshOptions options = m_options;
    QMetaObject::invokeMethod(
        m_worker, [worker, generation, options] { worker->start(generation, options); },
        Qt::QueuedConnection);
}

void SshTransport::close()
{
    if (m_state == State::Closed || m_state == State::Closing)
        return;
    m_state = State::Closing;
    m_cancel->store(true);  // a connect still running gives up after its current step
    SshWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker] { worker->finish(); }, Qt::QueuedConnection);
}

void SshTransport::sendLine(const QByteArray &line)
{
    if (m_state != State::Open)
        return;
    SshWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker, line] { worker->send(line); }, Qt::QueuedConnection);
}

void SshTransport::handleOpened(quint64 generation)
{
    if (generation != m_generation || m_state != State::Opening)
        return;
    m_state = State::Open;
    Q_EMIT opened();
}

void SshTransport::handleLine(quint64 generation, const QByteArray &line)
{
    if (generation == m_generation && m_state == State::Open)
        Q_EMIT lineReceived(line);
}

void SshTransport::handleLog(quint64 generation, const QString &text)
{
    if (generation != m_generation)
        return;
    m_log.append(text);
    while (m_log.size() > kLogLines)
        m_log.removeFirst();
    Q_EMIT logMessage(text);
}

void SshTransport::handleClosed(quint64 generation, const QString &reason, bool hostKeyRejected)
{
    if (generation != m_generation || m_state == State::Closed)
        return;
    m_state = State::Closed;
    m_hostKeyRejected = hostKeyRejected;
    Q_EMIT closed(reason);
}

}  // namespace ptwb
