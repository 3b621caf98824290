#include "devicesearchbar.h"

#include "backgroundtasks.h"
#include "devicesearch.h"
#include "optimize/gridsearches.h"
#include "optimize/transfersearch.h"
#include "plaintext.h"
#include "store/store.h"
#include "util/printable.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>

namespace ptwb::ui {

namespace {

// The most modes a search profiles (0: no fixed cap; bs takes about log2 of the space).
int mostProfiles(const SearchGoal &goal)
{
    if (goal.strategy == QLatin1String("gmd"))
        return GradientDescentStrategy::kMaxProfiles;
    if (goal.strategy == QLatin1String("pts"))
        return TransferSearchStrategy::kShared + TransferSearchStrategy::kMaxOwn;
    return 0;
}

}  // namespace

DeviceSearchBar::DeviceSearchBar(QWidget *parent)
    : QWidget(parent)
    , m_session(new SweepSession(this))
    , m_tasks(new BackgroundTasks(this))
    , m_status(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel search"), this))
{
    setObjectName(QStringLiteral("deviceSearchBar"));
    m_status->setTextFormat(Qt::PlainText);  // device text is never markup
    m_status->setWordWrap(true);
    m_progress->setMaximumWidth(160);
    m_progress->setFormat(tr("%v of at most %m"));
    m_cancel->setObjectName(QStringLiteral("cancelSearchButton"));
    m_cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancel->setToolTip(tr("Stop the search (Esc); the modes it profiled stay stored"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_status, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel);
    setVisible(false);

    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (isRunning())
            cancel();
        else
            setVisible(false);  // "Hide" once the search ended
    });
    connect(m_session, &SweepSession::itemRecorded, this, &DeviceSearchBar::onItemRecorded);
    connect(m_session, &SweepSession::stopped, this, &DeviceSearchBar::onStopped);
}

void DeviceSearchBar::setDatabasePath(const QString &path)
{
    m_session->setDatabasePath(path);
}

void DeviceSearchBar::setDevice(const workflows::DeviceEndpoint &device)
{
    m_session->setDevice(device);
}

bool DeviceSearchBar::isRunning() const
{
    return m_session->isRunning() || m_reading;
}

QString DeviceSearchBar::statusText() const
{
    return m_status->text();
}

void DeviceSearchBar::start(const QString &workload, const QString &deviceName,
                            const SearchGoal &goal)
{
    if (isRunning())
        return;
    m_goal = goal;
    m_steps = 0;
    m_cancelRequested = false;
    m_progress->setRange(0, mostProfiles(goal));  // 0: busy
    m_progress->setValue(0);
    m_status->setText(tr("Searching %1 with %2 for %3: profiling the first mode…")
                          .arg(m_session->device().name, goal.strategy, goal.goalText()));
    m_cancel->setText(tr("Cancel search"));
    m_cancel->setEnabled(true);
    setVisible(true);
    workflows::SweepRequest request;
    request.workload = workload;
    request.modeSet = goal.modeSet();
    request.deviceName = deviceName;
    m_session->start(request);
    Q_EMIT runningChanged(true);
}

void DeviceSearchBar::askToStart(const QString &workload, const QString &deviceName,
                                 const SearchGoal &goal)
{
    if (isRunning() || m_confirm)
        return;
    const int most = mostProfiles(goal);
    m_confirm = new QMessageBox(
        QMessageBox::Question, tr("Find a mode on the device"),
        tr("Search %1 for %2?\n\n%3 profiles one mode after another%4, running %5 in each, "
           "and stores every measurement. You can cancel at any time; the mode found is then "
           "yours to apply.")
            .arg(m_session->device().name, goal.goalText(), goal.strategy,
                 most > 0 ? tr(" (at most %1)").arg(most) : tr(" (about 11)"), workload),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    makePlain(m_confirm);  // device and workload names are text
    m_confirm->setObjectName(QStringLiteral("searchConfirmBox"));
    m_confirm->setDefaultButton(QMessageBox::Yes);
    m_confirm->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_confirm, &QMessageBox::finished, this,
            [this, workload, deviceName, goal](int result) {
                m_confirm = nullptr;
                if (result == QMessageBox::Yes)
                    start(workload, deviceName, goal);
            });
    m_confirm->open();
}

void DeviceSearchBar::cancel()
{
    if (!m_session->isRunning())
        return;
    m_cancelRequested = true;
    m_session->cancel();
}

void DeviceSearchBar::onItemRecorded(const SweepItem &item, const Measurement &measurement)
{
    ++m_steps;
    if (m_progress->maximum() > 0)
        m_progress->setValue(std::min(m_steps, m_progress->maximum()));
    const QString what = item.state == SweepItem::State::Done
        ? tr("%1 drew %2 W at %3 ms per minibatch")
              .arg(item.mode.toShort())
              .arg(measurement.powerW, 0, 'f', 1)
              .arg(measurement.timeMs, 0, 'f', 1)
        : tr("%1 could not be measured (%2)").arg(item.mode.toShort(), printable(item.reason));
    m_status->setText(tr("Searching %1 with %2 within %3: step %4, %5")
                          .arg(m_session->device().name, m_goal.strategy, m_goal.budgetText())
                          .arg(m_steps)
                          .arg(what));
    Q_EMIT measured(item.mode);
}

void DeviceSearchBar::onStopped(qint64 sweepId, SweepState state, const QString &summary)
{
    // Cancelled between two steps, the sweep has nothing pending and ends "done".
    if (state == SweepState::Done && !m_cancelRequested) {
        readAnswer(sweepId);
        return;
    }
    const QString why = state == SweepState::Cancelled || m_cancelRequested
        ? tr("Search cancelled after %1 profiled modes; they stay stored.").arg(m_steps)
        : tr("The search stopped: %1").arg(summary);
    finish(why);
    Q_EMIT stopped(why);
}

// The answer needs the store: read on a worker, never on the GUI thread.
void DeviceSearchBar::readAnswer(qint64 sweepId)
{
    m_reading = true;
    m_cancel->setEnabled(false);
    m_tasks->run(
        QStringLiteral("answer"),
        [path = m_session->databasePath(),
         sweepId](const TaskContext &) -> Expected<workflows::SearchOutcome> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<workflows::SearchOutcome>>(store);
            return workflows::searchOutcome(**store, sweepId);
        },
        [this](const Expected<workflows::SearchOutcome> &outcome) {
            m_reading = false;
            if (!outcome) {
                finish(outcome.error());
                Q_EMIT stopped(outcome.error());
                return;
            }
            const QString summary = outcome->fits
                ? tr("%1 found %2 within %3 after %4 profiled modes")
                      .arg(outcome->goal.strategy, outcome->mode.toShort(),
                           outcome->goal.budgetText())
                      .arg(outcome->profiled)
                : tr("%1 found no mode within %2 after %3 profiled modes; the closest is %4")
                      .arg(outcome->goal.strategy, outcome->goal.budgetText())
                      .arg(outcome->profiled)
                      .arg(outcome->mode.toShort());
            finish(summary);
            Q_EMIT found(outcome->mode, outcome->fits, summary);
        });
}

void DeviceSearchBar::finish(const QString &status)
{
    m_status->setText(status);
    m_cancel->setText(tr("Hide"));
    m_cancel->setEnabled(true);
    if (m_progress->maximum() == 0)
        m_progress->setRange(0, 1);  // stop the busy indicator
    m_progress->setValue(m_progress->maximum());
    Q_EMIT runningChanged(false);
}

}  // namespace ptwb::ui
