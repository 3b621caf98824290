#pragma once

#include "concurrentverify.h"

#include <QDialog>
#include <QElapsedTimer>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ptwb::ui {

class ConcurrentVerifyTable;

// Explore's "Verify on device…": the concurrent pick run on the device (workflows::
// startVerification, the workflow of `ptwb verify-concurrent`). Asks for the device's built-in
// stand-ins for the two workloads, the run's duration and whether to keep the mode after a good
// run; then shows the phase, the progress with the time left, the measured numbers beside the
// formulas, the prediction and the budgets live, and at the end a verdict per budget and which
// mode the device runs. Cancel, or closing the dialog, stops the run and restores the mode.
class ConcurrentVerifyDialog : public QDialog
{
    Q_OBJECT

public:
    struct Pick
    {
        PowerMode mode;
        int batch = 1;  // b
        ConcurrentProblem problem;  // λ and the budgets on screen
        std::optional<PairCost> predicted;
        QString trainWorkload;  // the store's names, to preselect the built-ins
        QString inferWorkload;
    };

    ConcurrentVerifyDialog(const workflows::DeviceEndpoint &device, const Pick &pick,
                           QWidget *parent = nullptr);
    ~ConcurrentVerifyDialog() override;

    // The pick of Explore's concurrent mode as the dialog wants it: the predicted cost from
    // workflows::predictedCost, else the space's cost of the pair.
    static Pick pickOf(const ConcurrentSpace &space, int pair, const ConcurrentProblem &problem,
                       const QString &trainWorkload, const QString &inferWorkload);

    bool isRunning() const { return m_run != nullptr; }
    QComboBox *trainingCombo() const { return m_train; }
    QComboBox *inferenceCombo() const { return m_infer; }
    QSpinBox *durationSpin() const { return m_duration; }
    QCheckBox *keepCheck() const { return m_keep; }
    QPushButton *startButton() const { return m_start; }
    QPushButton *cancelButton() const { return m_cancel; }
    ConcurrentVerifyTable *table() const { return m_table; }
    QString phaseText() const;
    // Device seconds of the run so far (the last progress event's).
    double progressSeconds() const { return m_deviceS; }
    QString outcomeText() const;

public Q_SLOTS:
    void start();
    void cancelRun();
    void reject() override;

Q_SIGNALS:
    // Once per run, after the device is back in its previous mode (or keeps the verified one).
    void runFinished(bool ok);

private:
    void showProgress(const ConcurrentMeasurement &measured);
    void finish(const Expected<workflows::VerificationOutcome> &outcome);
    QString verdict(const workflows::VerificationOutcome &outcome) const;
    void setRunning(bool running);

    workflows::DeviceEndpoint m_device;
    Pick m_pick;
    workflows::VerificationRequest m_request;
    QComboBox *m_train;
    QComboBox *m_infer;
    QSpinBox *m_duration;
    QCheckBox *m_keep;
    QLabel *m_phase;
    QProgressBar *m_progress;
    QLabel *m_timeLeft;
    ConcurrentVerifyTable *m_table;
    QLabel *m_outcome;
    QPushButton *m_start;
    QPushButton *m_cancel;
    QPushButton *m_close;
    std::unique_ptr<workflows::VerificationRun> m_run;
    bool m_cancelling = false;
    bool m_closeWhenDone = false;
    // The pace of device time against wall time, from the first progress event on.
    QElapsedTimer m_wall;
    double m_firstDeviceS = -1;
    double m_deviceS = 0;
};

}  // namespace ptwb::ui
