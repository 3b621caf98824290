#include "sshtransport.h"

#include "hostkeycheck.h"
#include "sshcancel.h"
#include "sshthreads.h"
#include "sshworker.h"

#include <QCoreApplication>
#include <QThread>

namespace ptwb {

namespace {

constexpr int kLogLines = 50;

}  // namespace

SshTransport::SshTransport(SshOptions options, QObject *parent)
    : Transport(parent)
    , m_options(std::move(options))
    , m_cancel(std::make_shared<SshCancel>())
    , m_inFlight(std::make_shared<std::atomic<int>>(0))
{
    if (!m_options.prompts)
        m_options.prompts = std::make_shared<RefusingSshPrompts>();
    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("ssh %1").arg(m_options.host));
    // The QThread object (not the thread it runs) lives on the application's thread, even when
    // a sweep's thread makes this transport: SshThreads deletes it there once it has finished.
    if (QCoreApplication *app = QCoreApplication::instance())
        m_thread->moveToThread(app->thread());
    m_worker = new SshWorker(m_cancel, m_inFlight);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &SshWorker::opened, this, &SshTransport::handleOpened);
    connect(m_worker, &SshWorker::lineReceived, this, &SshTransport::handleLine);
    connect(m_worker, &SshWorker::logMessage, this, &SshTransport::handleLog);
    connect(m_worker, &SshWorker::lineDiscarded, this, &SshTransport::handleDiscarded);
    connect(m_worker, &SshWorker::closed, this, &SshTransport::handleClosed);
    m_thread->start();
}

SshTransport::~SshTransport()
{
    // Never waits for the worker, whatever thread this is: it may be inside a blocking libssh
    // call (bounded by connectTimeoutMs). Nothing dangles: the worker's signals to this object
    // are cut here (queued ones die with it), the worker shares only the cancel flag and a copy
    // of the options, it closes the libssh session on its own thread (the queued shutdown(), or
    // its destructor, run there when the thread finishes), and SshThreads deletes the thread once
    // it has finished and waits for it at exit.
    m_worker->disconnect(this);
    m_cancel->request();  // a connect gives up after its current step, a pending prompt at once
    SshWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker] { worker->shutdown(); }, Qt::QueuedConnection);
    m_thread->quit();
    SshThreads::adopt(m_thread);
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
    m_dropped = false;
    m_cancel->reset();
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
    m_cancel->request();  // a connect gives up after its current step, a pending prompt at once
    SshWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker] { worker->finish(); }, Qt::QueuedConnection);
}

void SshTransport::drop(const QString &reason)
{
    if (m_state == State::Closed || m_dropped)
        return;
    m_dropped = true;
    m_state = State::Closing;  // lines still queued from the worker are not handed on
    m_cancel->request();
    SshWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [worker, reason] { worker->abort(reason); }, Qt::QueuedConnection);
}

void SshTransport::handled()
{
    // The worker stops reading at kMaxInFlight lines not handled; half way down it goes on.
    if (m_inFlight->fetch_sub(1) == SshWorker::kMaxInFlight / 2) {
        SshWorker *worker = m_worker;
        QMetaObject::invokeMethod(
            m_worker, [worker] { worker->resume(); }, Qt::QueuedConnection);
    }
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
    handled();
    if (generation == m_generation && m_state == State::Open)
        Q_EMIT lineReceived(line);
}

void SshTransport::handleDiscarded(quint64 generation, qint64 bytes, const QString &prefix)
{
    handled();
    if (generation == m_generation && m_state == State::Open)
        Q_EMIT lineDiscarded(bytes, prefix);
}

void SshTransport::handleLog(quint64 generation, const QString &text)
{
    handled();
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
