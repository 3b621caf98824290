#include "sshthreads.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QList>
#include <QMutex>
#include <QMutexLocker>
#include <QThread>

#include <mutex>

namespace ptwb::SshThreads {

namespace {

// A cancelled worker ends after its current libssh step, bounded by the connect timeout
// (10 s by default); a little more than that, then the process exits regardless.
constexpr int kExitWaitMs = 15000;

QMutex mutex;
QList<QThread *> threads;  // adopted and not finished yet

void waitAtExit()
{
    if (!waitForAll(kExitWaitMs))
        qWarning("ptwb: %d SSH worker thread(s) still running at exit", running());
}

}  // namespace

void adopt(QThread *thread)
{
    static std::once_flag registered;
    std::call_once(registered, [] { qAddPostRoutine(waitAtExit); });
    {
        const QMutexLocker lock(&mutex);
        threads.append(thread);
    }
    // Direct: runs on the finishing thread itself, so even a thread whose finish nobody's event
    // loop sees any more leaves the list. The delete happens on the application's thread.
    QObject::connect(
        thread, &QThread::finished, thread,
        [thread] {
            {
                const QMutexLocker lock(&mutex);
                threads.removeOne(thread);
            }
            thread->deleteLater();
        },
        Qt::DirectConnection);
    if (thread->isFinished()) {  // finished before the connection was made
        const QMutexLocker lock(&mutex);
        if (threads.removeOne(thread))
            thread->deleteLater();
    }
}

bool waitForAll(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    for (;;) {
        QThread *thread = nullptr;
        {
            const QMutexLocker lock(&mutex);
            if (threads.isEmpty())
                return true;
            thread = threads.first();
        }
        // Safe outside the lock: the thread object is only deleted on the application's thread,
        // later, by its deleteLater(); this runs on that thread (the post routine) or a test's.
        if (!thread->wait(deadline))
            return false;
        const QMutexLocker lock(&mutex);
        threads.removeOne(thread);  // normally done by its finished handler already
    }
}

int running()
{
    const QMutexLocker lock(&mutex);
    return int(threads.size());
}

}  // namespace ptwb::SshThreads
