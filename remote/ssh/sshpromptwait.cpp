#include "sshpromptwait.h"

#include "sshcancel.h"

#include <QEventLoop>
#include <QMutex>
#include <QMutexLocker>

#include <atomic>
#include <memory>

namespace ptwb::SshPromptWait {

namespace {

// Shared with the reply callback, which may run on any thread and after the wait is over.
struct Pending
{
    QMutex mutex;
    QEventLoop *loop = nullptr;  // while the worker waits
    std::optional<SshPromptAnswer> answer;
    bool over = false;  // the wait ended: a late reply is dropped
};

std::atomic<quint64> lastId {0};

}  // namespace

std::optional<SshPromptAnswer> ask(SshPrompts &prompts, SshPromptRequest request, SshCancel *cancel)
{
    request.id = ++lastId;
    if (cancel && cancel->isRequested())
        return std::nullopt;
    auto pending = std::make_shared<Pending>();
    QEventLoop loop;
    {
        const QMutexLocker lock(&pending->mutex);
        pending->loop = &loop;
    }
    if (cancel)
        cancel->setWaitingLoop(&loop);
    prompts.ask(request, [pending](SshPromptAnswer answer) {
        const QMutexLocker lock(&pending->mutex);
        if (pending->over || pending->answer)
            return;
        pending->answer = std::move(answer);
        if (pending->loop)
            QMetaObject::invokeMethod(pending->loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    bool answered = false;
    {
        const QMutexLocker lock(&pending->mutex);
        answered = pending->answer.has_value();
    }
    // Ends with the reply's or the cancel's quit, or at once when the thread is quitting.
    if (!answered && !(cancel && cancel->isRequested()))
        loop.exec();
    if (cancel)
        cancel->setWaitingLoop(nullptr);
    std::optional<SshPromptAnswer> answer;
    {
        const QMutexLocker lock(&pending->mutex);
        pending->over = true;
        pending->loop = nullptr;
        answer = std::move(pending->answer);
        pending->answer.reset();
    }
    if (cancel && cancel->isRequested())
        answer.reset();
    if (!answer)
        prompts.cancel(request.id);
    return answer;
}

}  // namespace ptwb::SshPromptWait
