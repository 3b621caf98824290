#pragma once

#include "backgroundtasks.h"
#include "concurrent/concurrentevaluation.h"
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

class ConcurrentCompareForm;
class StrategyBarChart;
class StrategyBoxChart;

// Compare's concurrent training + inference evaluation: `ptwb evaluate-concurrent` on a training
// and an inference workload of the store (workflows::concurrentEvaluator, the CLI's evaluator),
// run on a worker with progress, time left and cancel. Per strategy: a box plot of the training
// throughput shortfall against the optimum, bars of the problems answered feasibly and exactly
// optimally, bars of the answers over a budget, and every metric in a table that exports as CSV
// (the charts as PNG or SVG).
class ConcurrentComparePanel : public QWidget
{
    Q_OBJECT

public:
    explicit ConcurrentComparePanel(QWidget *parent = nullptr);
    ~ConcurrentComparePanel() override;  // cancels its worker

    void setDatabasePath(const QString &path);
    // The device kind's workloads, training and inference alike.
    void setWorkloads(const QVector<WorkloadSummary> &summaries);

    ConcurrentCompareForm *form() const { return m_form; }
    bool isRunning() const { return m_running; }
    const QVector<ConcurrentMetrics> &results() const { return m_results; }
    QTableWidget *table() const { return m_table; }
    QLabel *status() const { return m_status; }
    StrategyBoxChart *shortfallChart() const { return m_shortfallChart; }
    StrategyBarChart *answersChart() const { return m_answersChart; }
    StrategyBarChart *violationChart() const { return m_violationChart; }
    QWidget *charts() const { return m_charts; }
    // The metrics as CSV, one row per strategy, under the keys of
    // `ptwb evaluate-concurrent --json` and the box's five numbers.
    QByteArray csv() const;
    bool exportCharts(const QString &path, QString *error) const;

public Q_SLOTS:
    void run();
    void cancel();
    // Writes csv() to `path` on a worker; exported() or failed() tells.
    void exportCsv(const QString &path);

Q_SIGNALS:
    void finished();
    void cancelled();
    void exported(const QString &path);
    void failed(const QString &message);

private:
    void addResult(const ConcurrentMetrics &metrics);
    void onProgress(int done, int total);
    void endRun(const QString &message);
    void showStatus(const QString &message);
    void updateCharts();
    void updateActions();
    void chooseExportFile();
    void chooseChartsFile();

    QString m_path;
    QVector<ConcurrentMetrics> m_results;

    BackgroundTasks *m_tasks;
    QStackedWidget *m_stack;
    ConcurrentCompareForm *m_form;
    QPushButton *m_runButton;
    QPushButton *m_cancelButton;
    QPushButton *m_exportButton;
    QPushButton *m_chartsButton;
    QProgressBar *m_progress;
    QLabel *m_status;
    StrategyBoxChart *m_shortfallChart;
    StrategyBarChart *m_answersChart;
    StrategyBarChart *m_violationChart;
    QWidget *m_charts;
    QTableWidget *m_table;
    QAction *m_runAction;
    QAction *m_cancelAction;
    QAction *m_exportAction;

    JobProgress m_job;
    bool m_running = false;
    int m_runRepeats = 1;  // of the run on show, for its summary
    int m_runProblems = 0;
};

}  // namespace ptwb::ui
