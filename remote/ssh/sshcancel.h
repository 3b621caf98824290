#pragma once

#include <QMutex>

#include <atomic>

class QEventLoop;

namespace ptwb {

// Whether a connection attempt should give up: SshTransport requests it (close(), its
// destructor) from its own thread; the worker checks it between steps, and a prompt it waits for
// (SshPromptWait) is woken by it at once. Thread-safe; shared by shared_ptr.
class SshCancel
{
public:
    void request();
    void reset() { m_requested.store(false); }
    bool isRequested() const { return m_requested.load(); }

    // For SshPromptWait: while set, request() quits this loop (queued to the loop's thread).
    void setWaitingLoop(QEventLoop *loop);

private:
    std::atomic<bool> m_requested {false};
    QMutex m_mutex;  // guards m_loop
    QEventLoop *m_loop = nullptr;
};

}  // namespace ptwb
