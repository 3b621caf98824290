#include "backgroundtasks.h"

#include <QtConcurrent>

#include <cmath>

namespace ptwb::ui {

QString durationText(double seconds)
{
    const qint64 s = qMax<qint64>(0, qint64(std::llround(seconds)));
    if (s < 60)
        return QObject::tr("%1 s").arg(s);
    if (s < 3600)
        return QObject::tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QObject::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString TimeLeft::text(double fractionDone) const
{
    // Below 2 % the pace says little (start-up costs dominate).
    if (!(fractionDone > 0.02) || !m_clock.isValid())
        return fromSeconds(-1);
    const double fraction = std::min(fractionDone, 1.0);
    return fromSeconds(elapsedSeconds() * (1 - fraction) / fraction);
}

QString TimeLeft::fromSeconds(double remainingSeconds)
{
    if (remainingSeconds < 0)
        return QObject::tr("estimating time left");
    return QObject::tr("about %1 left").arg(durationText(remainingSeconds));
}

void TaskContext::post(std::function<void()> report) const
{
    // m_current is called on the owner's thread, inside the delivery.
    BackgroundTasks::postTo(m_inbox, [current = m_current, report = std::move(report)] {
        if (current())
            report();
    });
}

BackgroundTasks::BackgroundTasks(QObject *parent)
    : QObject(parent)
    , m_inbox(std::make_shared<detail::Inbox>())
{
    m_inbox->owner = this;
}

BackgroundTasks::~BackgroundTasks()
{
    cancelAll();
    // From here on no worker can post to this object; the ones running finish by themselves.
    const std::lock_guard<std::mutex> lock(m_inbox->mutex);
    m_inbox->owner = nullptr;
}

TaskContext BackgroundTasks::begin(const QString &key, quint64 *generation)
{
    Slot &slot = m_slots[key];
    if (slot.cancel)
        slot.cancel->store(true);  // superseded: its result would be dropped anyway
    slot.generation = *generation = ++m_nextGeneration;
    slot.cancel = std::make_shared<std::atomic<bool>>(false);
    const bool wasIdle = m_running.isEmpty();
    m_running.insert(key, *generation);
    if (wasIdle)
        Q_EMIT busyChanged(true);
    const std::shared_ptr<detail::Inbox> inbox = m_inbox;
    const quint64 mine = *generation;
    std::function<bool()> current = [inbox, key, mine] {
        const auto *self = static_cast<const BackgroundTasks *>(inbox->owner);
        return self && self->isCurrent(key, mine);
    };
    return TaskContext(m_inbox, std::move(current), slot.cancel);
}

bool BackgroundTasks::isCurrent(const QString &key, quint64 generation) const
{
    const auto it = m_slots.constFind(key);
    return it != m_slots.cend() && it->generation == generation;
}

void BackgroundTasks::finish(const QString &key, quint64 generation)
{
    const auto it = m_running.constFind(key);
    if (it == m_running.cend() || *it != generation)
        return;
    m_running.erase(it);
    if (m_running.isEmpty())
        Q_EMIT busyChanged(false);
}

void BackgroundTasks::cancel(const QString &key)
{
    if (const auto it = m_slots.constFind(key); it != m_slots.cend() && it->cancel)
        it->cancel->store(true);
}

void BackgroundTasks::cancelAll()
{
    for (const Slot &slot : std::as_const(m_slots)) {
        if (slot.cancel)
            slot.cancel->store(true);
    }
}

void BackgroundTasks::drop(const QString &key)
{
    cancel(key);
    m_slots.remove(key);
    if (m_running.remove(key) > 0 && m_running.isEmpty())
        Q_EMIT busyChanged(false);
}

void BackgroundTasks::launch(std::function<void()> job)
{
    // The returned future is not kept: nothing waits for a task (see the class comment).
    (void)QtConcurrent::run(std::move(job));
}

void BackgroundTasks::postTo(const std::shared_ptr<detail::Inbox> &inbox,
                             std::function<void()> deliver)
{
    const std::lock_guard<std::mutex> lock(inbox->mutex);
    if (inbox->owner)
        QMetaObject::invokeMethod(inbox->owner, std::move(deliver), Qt::QueuedConnection);
}

}  // namespace ptwb::ui
