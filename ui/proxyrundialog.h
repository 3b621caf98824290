#pragma once

#include "deviceendpoint.h"
#include "proxyconvergence.h"

#include <QDialog>

#include <memory>
#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ptwb::ui {

class BackgroundTasks;

// "Measure by proxy run…" (issue 17): the researcher's training command trains with each batch
// size to the target accuracy on a device of the Devices list (a GPU server, the Jetson, the
// simulated Jetson), the learning rate scaled linearly from a base (workflows::
// startProxyConvergence, the function behind `ptwb convergence --proxy`). Progress with the
// time left, Cancel, then each batch size's outcome; what reached the target is stored as the
// workload's relation with provenance proxy (workflows::storeProxyRelation, on a worker). The
// fields persist in QSettings. Device text is shown as plain text.
class ProxyRunDialog : public QDialog
{
    Q_OBJECT

public:
    explicit ProxyRunDialog(const QString &databasePath, const QString &workload,
                            QWidget *parent = nullptr);
    ~ProxyRunDialog() override;

    // Runs on this endpoint instead of the chosen Devices entry (tests, screenshots).
    void setDevice(const workflows::DeviceEndpoint &device) { m_deviceOverride = device; }
    // The request the fields describe, or why not (naming the field).
    Expected<workflows::ProxyRunRequest> request() const;
    bool isRunning() const { return m_run != nullptr; }

    QLineEdit *commandEdit() const { return m_command; }
    QLineEdit *batchSizesEdit() const { return m_batchSizes; }
    QDoubleSpinBox *targetAccuracyBox() const { return m_target; }
    QDoubleSpinBox *baseLearningRateBox() const { return m_baseLr; }
    QSpinBox *baseBatchBox() const { return m_baseBatch; }
    QPushButton *startButton() const { return m_start; }
    QString statusText() const;
    QString resultText() const;

public Q_SLOTS:
    void start();
    void cancelRun();

Q_SIGNALS:
    // A relation was stored for this workload (the explorer reloads).
    void stored(const QString &workload);
    void runFinished(bool stored);

protected:
    void reject() override;

private:
    void onFinished(const Expected<workflows::ProxyRunReport> &report);
    void showProgress(const QString &what);
    void setRunning(bool running);
    void saveSettings() const;

    QString m_dbPath;
    BackgroundTasks *m_tasks;
    QLineEdit *m_workload;
    QComboBox *m_device;
    QLineEdit *m_command;
    QLineEdit *m_cwd;
    QLineEdit *m_batchSizes;
    QDoubleSpinBox *m_target;
    QDoubleSpinBox *m_baseLr;
    QSpinBox *m_baseBatch;
    QSpinBox *m_timeout;
    QDoubleSpinBox *m_scale;
    QProgressBar *m_progress;
    QLabel *m_status;
    QPlainTextEdit *m_result;
    QPushButton *m_start;
    QPushButton *m_cancel;
    std::optional<workflows::DeviceEndpoint> m_deviceOverride;
    std::unique_ptr<workflows::ProxyConvergenceRun> m_run;
    workflows::ProxyRunRequest m_running;  // the request of the run in flight
};

}  // namespace ptwb::ui
