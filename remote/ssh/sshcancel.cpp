#include "sshcancel.h"

#include <QEventLoop>
#include <QMutexLocker>

namespace ptwb {

void SshCancel::request()
{
    m_requested.store(true);
    const QMutexLocker lock(&m_mutex);
    if (m_loop)
        QMetaObject::invokeMethod(m_loop, &QEventLoop::quit, Qt::QueuedConnection);
}

void SshCancel::setWaitingLoop(QEventLoop *loop)
{
    const QMutexLocker lock(&m_mutex);
    m_loop = loop;
}

}  // namespace ptwb
