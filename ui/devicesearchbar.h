#pragma once

#include "deviceendpoint.h"
#include "sweep/sweepplan.h"
#include "sweepsession.h"

#include <QWidget>

class QLabel;
class QMessageBox;
class QProgressBar;
class QPushButton;

namespace ptwb::ui {

class BackgroundTasks;

// "Find on device…" under way (Explore view): a search for the fastest mode within a power
// budget (gmd or bs, docs/sweeps.md) run as a sweep on the sweep thread. Shows each profiled mode
// as it is stored and the steps so far, cancels at any time (what was measured stays), and reads
// the answer from the store on a worker. Hidden while idle.
class DeviceSearchBar : public QWidget
{
    Q_OBJECT

public:
    explicit DeviceSearchBar(QWidget *parent = nullptr);

    void setDatabasePath(const QString &path);
    void setDevice(const workflows::DeviceEndpoint &device);
    bool isRunning() const;

    // `deviceName`: the store's device the measurements go to (the one the view shows).
    void start(const QString &workload, const QString &deviceName, const SearchGoal &goal);
    // The same after the person confirms what will run on the device (a window-modal box).
    void askToStart(const QString &workload, const QString &deviceName, const SearchGoal &goal);
    void cancel();

    QString statusText() const;
    QPushButton *cancelButton() const { return m_cancel; }
    int steps() const { return m_steps; }

Q_SIGNALS:
    // A mode was profiled and stored: the view reloads to show it.
    void measured(const ptwb::PowerMode &mode);
    // The search ended with its answer (fits: within the budget by its measurement).
    void found(const ptwb::PowerMode &mode, bool fits, const QString &summary);
    // It could not start, was cancelled or lost the device: why, in a sentence.
    void stopped(const QString &message);
    void runningChanged(bool running);

private:
    void onItemRecorded(const SweepItem &item, const Measurement &measurement);
    void onStopped(qint64 sweepId, SweepState state, const QString &summary);
    void readAnswer(qint64 sweepId);
    void finish(const QString &status);

    SweepSession *m_session;
    BackgroundTasks *m_tasks;
    QLabel *m_status;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    SearchGoal m_goal;
    QMessageBox *m_confirm = nullptr;
    int m_steps = 0;
    bool m_cancelRequested = false;
    bool m_reading = false;  // the search ended; its answer is being read
};

}  // namespace ptwb::ui
