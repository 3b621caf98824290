#pragma once

#include "sweepsession.h"

#include <QWidget>

class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QDialog;
class QLabel;
class QLineEdit;
class QLineSeries;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QValueAxis;

class QPlainTextEdit;

namespace ptwb::ui {

class BackgroundTasks;
class SweepResultsModel;

// The Sweep view: plan a sweep of the current device (workload: a built-in or a saved definition
// of the device's kind, edited in the Workloads dialog; mode set, minibatches, repeats, when to
// stop after consecutive failures), start, pause, resume and cancel it, follow its progress with
// time left, the live minibatch time and power of the mode being measured, and the measured modes
// as they arrive. The sweep itself runs on SweepSession's thread; this widget only renders what it
// reports.
class SweepPanel : public QWidget
{
    Q_OBJECT

public:
    explicit SweepPanel(QWidget *parent = nullptr);
    ~SweepPanel() override;

    void setDatabasePath(const QString &path);
    void setDevice(const workflows::DeviceEndpoint &device);  // the window's current device
    // The device kind sweeps are planned for (the device's own tables), empty without a device.
    QString deviceKind() const { return m_hasTarget ? m_deviceKind : QString(); }
    bool isRunning() const;
    // The sweep shown (the last one started or resumed here), 0 before the first.
    qint64 sweepId() const;

    // The plan in the controls; setRequest fills them (e.g. from saved settings).
    workflows::SweepRequest request() const;
    void setRequest(const workflows::SweepRequest &request);

    SweepResultsModel *results() const { return m_results; }
    // The workloads the chooser lists (built-ins, then the saved definitions for this device).
    QStringList workloadNames() const;
    // Whether the chooser has the store's definitions (after setDatabasePath, setDevice or a
    // change in the Workloads dialog they load off the GUI thread).
    bool workloadsLoaded() const { return m_workloadsLoaded; }
    // What the failure pane shows for the selected failed mode (tests).
    QString failureDetailsText() const;

public Q_SLOTS:
    void start();
    // Opens the Workloads dialog for this device (window-modal); returns it (tests).
    QDialog *openWorkloads();
    void reloadWorkloads();
    void pause();
    void resume();
    void cancel();

Q_SIGNALS:
    // The sweep ended for good: every planned mode done or failed, or cancelled.
    void sweepFinished(qint64 sweepId);
    // A measured mode was written to the store.
    void measurementStored();
    // The chooser's list of workloads was reloaded from the store.
    void workloadListLoaded();

private:
    enum class State { Idle, Running, Pausing, Paused, Stopping };

    struct LivePlot
    {
        QChartView *view = nullptr;
        QLineSeries *series = nullptr;
        QValueAxis *x = nullptr;
        QValueAxis *y = nullptr;
        QList<QPointF> points;  // what the series shows
        double yMin = 0;  // of the points shown
        double yMax = 0;
        void clear(double xMax = 1);
        void append(const QVector<QPointF> &more);
    };

    QWidget *buildPlanBox();
    QWidget *buildProgressBox();
    static LivePlot buildPlot(const QString &title, const QString &xTitle, const QString &yTitle);
    void onStarted(const SweepRecord &record);
    void onProgress(const SweepProgress &progress);
    void onLive(const SweepLive &live);
    void onItemRecorded(const SweepItem &item, const Measurement &measurement);
    void onStopped(qint64 sweepId, SweepState state, const QString &summary);
    void setState(State state);
    void updateModeSetControls();
    void loadWorkloads();
    void updateWorkloadControls();
    void showFailureDetails();
    void showMessage(const QString &text, bool error = false);
    void applyChartTheme();

    SweepSession *m_session = nullptr;
    State m_state = State::Idle;
    QString m_databasePath;
    bool m_hasTarget = false;

    QLabel *m_deviceLabel = nullptr;
    QLabel *m_simulatedBadge = nullptr;
    BackgroundTasks *m_tasks = nullptr;
    bool m_workloadsLoaded = false;
    bool m_reloadQueued = false;  // a reload at the next turn of the event loop
    bool m_reloadPending = false;  // asked mid-sweep: done when planning again
    QString m_wantedWorkload;  // asked for by setRequest before the definitions arrived
    QString m_deviceKind;
    QComboBox *m_workload = nullptr;
    QPushButton *m_workloadsButton = nullptr;
    QSpinBox *m_stopAfter = nullptr;
    QPlainTextEdit *m_failureDetails = nullptr;
    QComboBox *m_modeKind = nullptr;
    QSpinBox *m_modeCount = nullptr;
    QLineEdit *m_gridSpec = nullptr;
    QSpinBox *m_minibatches = nullptr;
    QSpinBox *m_repeats = nullptr;
    QLineEdit *m_batchSizes = nullptr;
    QCheckBox *m_inference = nullptr;
    QPushButton *m_start = nullptr;
    QPushButton *m_pause = nullptr;
    QPushButton *m_resume = nullptr;
    QPushButton *m_cancel = nullptr;
    QLabel *m_sweepLabel = nullptr;
    QProgressBar *m_progressBar = nullptr;
    QLabel *m_progressLabel = nullptr;
    QLabel *m_currentLabel = nullptr;
    QLabel *m_messageLabel = nullptr;
    LivePlot m_timePlot;
    LivePlot m_powerPlot;
    QString m_liveMode;
    int m_planMinibatches = 40;
    SweepResultsModel *m_results = nullptr;
    QTableView *m_table = nullptr;
};

}  // namespace ptwb::ui
