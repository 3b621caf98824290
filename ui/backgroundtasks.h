#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

namespace ptwb::ui {

// "45 s", "1 min 20 s", "2 h 05 min": a duration as a person reads it. The one formatter of
// durations in the window.
QString durationText(double seconds);

// Time left of long work from the fraction done and the time it took so far:
// "about 1 min 20 s left", or "estimating time left" while too little is done to tell.
class TimeLeft
{
public:
    void start() { m_clock.start(); }
    double elapsedSeconds() const { return m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0; }
    QString text(double fractionDone) const;
    // The same from a remaining time already estimated elsewhere (< 0: not yet known).
    static QString fromSeconds(double remainingSeconds);

private:
    QElapsedTimer m_clock;
};

namespace detail {
// Where a finished task's result goes: the BackgroundTasks object while it lives. Workers post
// under the lock, and the destructor clears the pointer under the same lock, so a worker never
// posts to an object that is being destroyed.
struct Inbox
{
    std::mutex mutex;
    QObject *owner = nullptr;
};
}  // namespace detail

// What a running task sees: its cancel flag, and a way to report to the GUI thread.
class TaskContext
{
public:
    bool cancelled() const { return m_cancel->load(); }
    const std::shared_ptr<std::atomic<bool>> &cancelFlag() const { return m_cancel; }
    // Runs `report` on the owner's thread, unless the owner is gone or a newer task of the same
    // key has started by the time it arrives (for progress while the task runs).
    void post(std::function<void()> report) const;

private:
    friend class BackgroundTasks;
    TaskContext(std::shared_ptr<detail::Inbox> inbox, std::function<bool()> current,
                std::shared_ptr<std::atomic<bool>> cancel)
        : m_inbox(std::move(inbox))
        , m_current(std::move(current))
        , m_cancel(std::move(cancel))
    {
    }

    std::shared_ptr<detail::Inbox> m_inbox;
    std::function<bool()> m_current;  // called on the owner's thread only
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

// The background work of one view, in one place: runs functions on the thread pool and hands
// their results back on the view's thread.
// - A task has a key ("lists", "fit", "train"). Starting a task cancels the running one of the
//   same key, and only the newest task of a key delivers: stale results are dropped.
// - A result is delivered only while this object lives (it belongs to the view).
// - Work gets a TaskContext and must own copies of what it uses (paths, requests, shared
//   pointers; never the view): then nothing has to wait for it. The destructor cancels every
//   task and returns at once, so closing a window never blocks on work that cannot stop; a
//   task that is still running finishes on its own and its result is dropped.
class BackgroundTasks : public QObject
{
    Q_OBJECT

public:
    explicit BackgroundTasks(QObject *parent = nullptr);
    ~BackgroundTasks() override;

    // Runs `work(const TaskContext &)` off this thread; its return value goes to `show` on this
    // thread. `show` may be omitted for work that only reports through TaskContext::post.
    template<typename Work, typename Show>
    void run(const QString &key, Work work, Show show);
    template<typename Work>
    void run(const QString &key, Work work)
    {
        run(key, std::move(work), [](auto &&...) {});
    }

    // Sets the cancel flag of the task of `key`; its result is still delivered (it may say it
    // was cancelled), unless a newer task of the key starts.
    void cancel(const QString &key);
    void cancelAll();
    // Forgets the task of `key`: whatever it returns is dropped.
    void drop(const QString &key);

    bool isRunning(const QString &key) const { return m_running.contains(key); }
    int runningCount() const { return int(m_running.size()); }

Q_SIGNALS:
    // Some task is running, or none is any more.
    void busyChanged(bool busy);

private:
    friend class TaskContext;

    struct Slot
    {
        quint64 generation = 0;
        std::shared_ptr<std::atomic<bool>> cancel;
    };

    TaskContext begin(const QString &key, quint64 *generation);
    bool isCurrent(const QString &key, quint64 generation) const;
    void finish(const QString &key, quint64 generation);
    void launch(std::function<void()> job);
    // Runs `deliver` on this object's thread if it still lives then (from any thread).
    static void postTo(const std::shared_ptr<detail::Inbox> &inbox, std::function<void()> deliver);

    std::shared_ptr<detail::Inbox> m_inbox;
    QHash<QString, Slot> m_slots;  // the newest task of each key
    QHash<QString, quint64> m_running;  // key -> generation of the task still running
    quint64 m_nextGeneration = 0;
};

template<typename Work, typename Show>
void BackgroundTasks::run(const QString &key, Work work, Show show)
{
    quint64 generation = 0;
    TaskContext context = begin(key, &generation);
    std::shared_ptr<detail::Inbox> inbox = m_inbox;
    launch([inbox, context, key, generation, work = std::move(work),
            show = std::move(show)]() mutable {
        using Result = std::invoke_result_t<Work &, const TaskContext &>;
        if constexpr (std::is_void_v<Result>) {
            work(context);
            postTo(inbox, [inbox, key, generation, show = std::move(show)]() mutable {
                auto *self = static_cast<BackgroundTasks *>(inbox->owner);
                const bool current = self->isCurrent(key, generation);
                self->finish(key, generation);
                if (current)
                    show();
            });
        } else {
            auto result = std::make_shared<Result>(work(context));
            postTo(inbox, [inbox, key, generation, result, show = std::move(show)]() mutable {
                auto *self = static_cast<BackgroundTasks *>(inbox->owner);
                const bool current = self->isCurrent(key, generation);
                self->finish(key, generation);
                if (current)
                    show(std::move(*result));
            });
        }
    });
}

}  // namespace ptwb::ui
