#pragma once

#include "backgroundtasks.h"
#include "jobprogress.h"
#include "predict/accuracybench.h"
#include "store/measurement.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTreeWidget;

namespace ptwb::ui {

class AccuracyChart;

// The accuracy-vs-profiled-modes study of the paper, opened from the Models view: on a stored
// reference/target pair (of one device kind or across kinds), for each number of profiled modes
// and repeat, PT and NN are built on a random draw of target modes and validated on the rest.
// Shows the median MAPE with its quartile band per method and configuration as the rows
// complete, and exports the charts (PNG/SVG) and the rows (CSV, the keys of `ptwb bench accuracy
// --json`). The work is workflows::runAccuracyStudy on a worker.
class AccuracyStudyDialog : public QDialog
{
    Q_OBJECT

public:
    explicit AccuracyStudyDialog(QWidget *parent = nullptr);
    ~AccuracyStudyDialog() override;

    void setDatabasePath(const QString &path);
    // The Models view's device kind: the first target offered is one of its workloads.
    void setDeviceKind(const QString &kind);

    // What the controls are set to (tests and the screenshot); false when a workload is not listed.
    bool setWorkloads(const QString &reference, const QString &target);
    void setOptions(const AccuracyBenchOptions &options);
    // Regressor configurations instead of the named ones (tests: small ones).
    void setConfigOverrides(const QHash<QString, predict::RegressorConfig> &overrides)
    {
        m_overrides = overrides;
    }

    bool isRunning() const { return m_running; }
    const QVector<AccuracyRow> &rows() const { return m_rows; }
    AccuracyChart *timeChart() const { return m_timeChart; }
    AccuracyChart *powerChart() const { return m_powerChart; }
    QTreeWidget *table() const { return m_table; }

    bool exportCharts(const QString &path, QString *error) const;
    void exportCsv(const QString &path);  // on a worker; then exported() or failed()

public Q_SLOTS:
    void reload();
    void run();
    void cancel();
    void reject() override;  // Esc: cancels a running study first

Q_SIGNALS:
    void listsLoaded();
    void rowAdded(const ptwb::AccuracyRow &row);
    void finished(bool completed);  // false: failed or cancelled
    void exported(const QString &path);
    void failed(const QString &message);

private:
    void showWorkloads(const QVector<WorkloadSummary> &summaries);
    Expected<AccuracyBenchOptions> readOptions() const;
    void addRow(const AccuracyRow &row);
    void onFinished(const Expected<QVector<AccuracyRow>> &rows, bool cancelled);
    void showError(const QString &message, InputField field);
    void chooseChartsFile();
    void chooseCsvFile();
    void updateActions();

    QString m_path;
    QString m_kind;
    QHash<QString, predict::RegressorConfig> m_overrides;
    QVector<AccuracyRow> m_rows;
    bool m_running = false;

    QComboBox *m_reference;
    QComboBox *m_target;
    QLabel *m_crossDevice;
    QLineEdit *m_samples;
    QSpinBox *m_repeats;
    QCheckBox *m_pt;
    QCheckBox *m_nn;
    QCheckBox *m_default;
    QCheckBox *m_baseline;
    QPushButton *m_runButton;
    QPushButton *m_cancelButton;
    QProgressBar *m_progress;
    QLabel *m_status;
    QWidget *m_charts;
    AccuracyChart *m_timeChart;
    AccuracyChart *m_powerChart;
    QTreeWidget *m_table;
    QPushButton *m_chartsButton;
    QPushButton *m_csvButton;
    BackgroundTasks *m_tasks;
    JobProgress m_job;
};

}  // namespace ptwb::ui
