#pragma once

#include "backgroundtasks.h"

#include <QString>

class QLabel;
class QProgressBar;
class QPushButton;

namespace ptwb::ui {

// The progress area of a view's long job (a training, an evaluation): the progress bar with its
// text and time left, the Cancel button and a status line. The view creates and lays out the
// widgets; this keeps them in step the same way in every view.
class JobProgress
{
public:
    static constexpr int kSteps = 1000;  // the bar's resolution

    JobProgress(QProgressBar *bar, QPushButton *cancel, QLabel *status);

    // Shows the bar ("loading measurements…") and the Cancel button; the clock starts.
    void begin(const QString &what);
    // `fraction` done (0..1); the bar reads "TEXT — about 1 min 20 s left".
    void update(double fraction, const QString &text);
    // The bar reads `text` alone ("saving…").
    void updateText(double fraction, const QString &text);
    void setStatus(const QString &text);
    // Hides the bar and the button; `message` stays as the status (none: hidden).
    void end(const QString &message);
    double elapsedSeconds() const { return m_timeLeft.elapsedSeconds(); }

private:
    QProgressBar *m_bar;
    QPushButton *m_cancel;
    QLabel *m_status;
    TimeLeft m_timeLeft;
};

}  // namespace ptwb::ui
