#pragma once

#include "deviceendpoint.h"
#include "store/workloaddefinition.h"
#include "workloads.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <memory>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ptwb::ui {

// The Workloads dialog's "Test on device": runs a definition on the window's device in its
// current mode for up to N seconds (workflows::startWorkloadTest, the function behind `ptwb
// workload test`; event-driven, nothing waits), with the minibatches so far and the seconds
// left, Cancel, then the last lines of the script's output with the recognised minibatches
// highlighted and their ms, the median minibatch time and power, or why nothing was recognised.
// Everything the device says is shown as plain text, control characters stripped.
class WorkloadTestPane : public QWidget
{
    Q_OBJECT

public:
    explicit WorkloadTestPane(QWidget *parent = nullptr);
    ~WorkloadTestPane() override;

    void setDevice(const workflows::DeviceEndpoint &device);
    // What a test runs; a definition with a problem, or none (a built-in), cannot be tested.
    void setDefinition(const WorkloadDefinition &definition, bool testable,
                       const QString &whyNot = {});
    bool isRunning() const { return m_test != nullptr; }
    QPushButton *testButton() const { return m_testButton; }
    int seconds() const;
    void setSeconds(int seconds);

    // What the pane shows (tests, screenshots).
    QString outputText() const;
    QString summaryText() const;
    QString statusText() const;
    // The output's lines shown as recognised minibatches.
    int highlightedLines() const { return m_highlighted; }
    // A finished test's report, as if the device had sent it (screenshots).
    void showReport(const Expected<workflows::WorkloadTestReport> &report);

public Q_SLOTS:
    void startTest();
    void cancelTest();

Q_SIGNALS:
    void testFinished(bool recognised);
    void runningChanged(bool running);

private:
    void updateProgress();
    void updateControls();

    workflows::DeviceEndpoint m_device;
    WorkloadDefinition m_definition;
    bool m_testable = false;
    QString m_whyNot;
    std::unique_ptr<workflows::WorkloadTest> m_test;
    bool m_cancelling = false;
    int m_minibatches = 0;
    double m_deviceSeconds = 0;  // the minibatches' own time: the device's clock
    int m_highlighted = 0;
    QElapsedTimer m_clock;
    QTimer m_tick;

    QSpinBox *m_seconds = nullptr;
    QPushButton *m_testButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QPlainTextEdit *m_output = nullptr;
    QLabel *m_summary = nullptr;
};

}  // namespace ptwb::ui
