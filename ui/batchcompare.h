#pragma once

#include "backgroundtasks.h"
#include "batchchoice.h"
#include "jobprogress.h"
#include "store/measurement.h"

#include <QWidget>

class QAction;
class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableWidget;

namespace ptwb::ui {

class BatchCompareForm;
class StrategyBarChart;

// Compare's batch size and mode evaluation: `ptwb evaluate-batch` on a workload of the store
// measured at several training batch sizes (workflows::runBatchEvaluation, the CLI's workflow),
// run on a worker with cancel. Per strategy: the time (energy) to accuracy above the oracle's as
// a bar chart and, with the problems answered and over the cap, in a table that exports as CSV
// (the charts as PNG or SVG). A line says where the samples to accuracy come from.
class BatchComparePanel : public QWidget
{
    Q_OBJECT

public:
    explicit BatchComparePanel(QWidget *parent = nullptr);
    ~BatchComparePanel() override;  // cancels its worker

    void setDatabasePath(const QString &path);
    // The device kind's workloads.
    void setWorkloads(const QVector<WorkloadSummary> &summaries);

    BatchCompareForm *form() const { return m_form; }
    bool isRunning() const { return m_running; }
    const QVector<BatchStrategyResult> &results() const { return m_results; }
    QTableWidget *table() const { return m_table; }
    QLabel *status() const { return m_status; }
    // The samples' provenance, the batch sizes and the seconds of the run on show.
    QLabel *summary() const { return m_summary; }
    StrategyBarChart *penaltyChart() const { return m_penaltyChart; }
    StrategyBarChart *answersChart() const { return m_answersChart; }
    // The results as CSV under the keys of `ptwb evaluate-batch --json`.
    QByteArray csv() const;
    bool exportCharts(const QString &path, QString *error) const;

public Q_SLOTS:
    void run();
    void cancel();
    void exportCsv(const QString &path);

Q_SIGNALS:
    void finished();
    void cancelled();
    void exported(const QString &path);
    void failed(const QString &message);

private:
    void showOutcome(const workflows::BatchEvaluationOutcome &outcome);
    void endRun(const QString &message);
    void showStatus(const QString &message);
    void updateCharts();
    void updateActions();
    void chooseExportFile();
    void chooseChartsFile();

    QString m_path;
    QVector<BatchStrategyResult> m_results;
    AccuracyObjective m_objective = AccuracyObjective::Time;  // of the results on show
    double m_seconds = 0;

    BackgroundTasks *m_tasks;
    QStackedWidget *m_stack;
    BatchCompareForm *m_form;
    QPushButton *m_runButton;
    QPushButton *m_cancelButton;
    QPushButton *m_exportButton;
    QPushButton *m_chartsButton;
    QProgressBar *m_progress;
    QLabel *m_status;
    QLabel *m_summary;
    StrategyBarChart *m_penaltyChart;
    StrategyBarChart *m_answersChart;
    QWidget *m_charts;
    QTableWidget *m_table;
    QAction *m_runAction;
    QAction *m_cancelAction;
    QAction *m_exportAction;

    JobProgress m_job;
    bool m_running = false;
};

}  // namespace ptwb::ui
