#pragma once

#include "backgroundtasks.h"
#include "jobprogress.h"
#include "optimize/evaluation.h"
#include "store/measurement.h"

#include <QWidget>

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;

namespace ptwb::ui {

class BatchComparePanel;
class ConcurrentComparePanel;
class StrategyBarChart;
class StrategyBoxChart;

// The Compare view: the strategy evaluation of `ptwb evaluate` on two workloads of the store
// (reference for pt and safe, target for the candidates) over a range of power budgets, run on
// a worker with progress and cancel; per strategy, box plots of the time penalty and of the power
// above the budget, the budget violations as bars, and every metric in a table that exports as
// CSV (the charts as PNG or SVG). A switch above turns it to the concurrent training + inference
// problem (ConcurrentComparePanel, `ptwb evaluate-concurrent`) or the batch size one
// (BatchComparePanel, `ptwb evaluate-batch`).
class ComparePanel : public QWidget
{
    Q_OBJECT

public:
    // What is compared: training under a power budget, or training beside inference.
    enum class Problem { Training, Concurrent, Batch };

    explicit ComparePanel(QWidget *parent = nullptr);
    ~ComparePanel() override;  // cancels and waits for its worker

    void setDatabasePath(const QString &path);
    void setDeviceKind(const QString &kind);

    // The options a run uses, as the controls are set (parse errors in `error`).
    EvaluationOptions options(QString *error = nullptr) const;
    bool setReferenceWorkload(const QString &workload);
    bool setTargetWorkload(const QString &workload);
    void setBudgets(double fromW, double toW, double stepW);
    void setRepeats(int repeats);
    void setSamples(int samples);
    void setSeed(quint64 seed);
    void setStrategies(const QStringList &strategies);

    Problem problem() const;
    void setProblem(Problem problem);
    ConcurrentComparePanel *concurrent() const { return m_concurrent; }
    BatchComparePanel *batch() const { return m_batch; }

    bool isRunning() const { return m_running; }
    const QVector<StrategyMetrics> &results() const { return m_results; }
    QTableWidget *table() const { return m_table; }
    StrategyBoxChart *penaltyChart() const { return m_penaltyChart; }
    StrategyBoxChart *excessPowerChart() const { return m_excessChart; }
    StrategyBarChart *violationChart() const { return m_violationChart; }
    // The three charts together, as exported.
    QWidget *charts() const { return m_charts; }
    // The metrics as CSV, one row per strategy, under the keys of `ptwb evaluate --json`.
    QByteArray csv() const;
    // The charts on show (the training or the concurrent ones) as PNG or SVG, by the suffix of
    // `path`; `error` says why not.
    bool exportCharts(const QString &path, QString *error) const;

public Q_SLOTS:
    void reload();
    void run();
    void cancel();
    // Writes csv() to `path` on a worker; exported() or failed() tells.
    void exportCsv(const QString &path);

Q_SIGNALS:
    void listsLoaded();
    void finished();
    void cancelled();
    void exported(const QString &path);
    void failed(const QString &message);

private:
    void showWorkloads(const QVector<WorkloadSummary> &summaries);
    void addResult(const StrategyMetrics &metrics);
    void onProgress(int done, int total);
    void endRun(const QString &message);
    void updateCharts();
    void updateActions();
    void showPage();
    void chooseExportFile();
    void chooseChartsFile();

    QString m_path;
    QString m_kind;
    QVector<WorkloadSummary> m_summaries;
    QVector<StrategyMetrics> m_results;

    BackgroundTasks *m_tasks;
    QStackedWidget *m_stack;
    QComboBox *m_problem;
    ConcurrentComparePanel *m_concurrent;
    BatchComparePanel *m_batch;
    QComboBox *m_reference;
    QComboBox *m_target;
    QDoubleSpinBox *m_budgetFrom;
    QDoubleSpinBox *m_budgetTo;
    QDoubleSpinBox *m_budgetStep;
    QSpinBox *m_repeats;
    QSpinBox *m_samples;
    QSpinBox *m_seed;
    QListWidget *m_strategies;
    QPushButton *m_runButton;
    QPushButton *m_cancelButton;
    QPushButton *m_exportButton;
    QPushButton *m_chartsButton;
    QProgressBar *m_progress;
    QLabel *m_status;
    StrategyBoxChart *m_penaltyChart;
    StrategyBoxChart *m_excessChart;
    StrategyBarChart *m_violationChart;
    QWidget *m_charts;
    QTableWidget *m_table;
    QAction *m_runAction;
    QAction *m_cancelAction;
    QAction *m_exportAction;

    JobProgress m_job;
    bool m_running = false;
};

}  // namespace ptwb::ui
