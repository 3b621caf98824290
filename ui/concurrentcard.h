#pragma once

#include "concurrent/concurrentspace.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace ptwb::ui {

// The card of Explore's concurrent mode: the pick's mode, inference batch b, training
// minibatches per cycle, throughput, latency and power against their budgets, measured or
// predicted; "nothing is predicted to meet these budgets" with which budget binds. Below, Apply
// (the pick's mode; the batch size is for the person's server) with the apply countdown, and
// Verify on device (the verification run, ExplorePanel's ConcurrentVerifyDialog).
class ConcurrentCard : public QFrame
{
    Q_OBJECT

public:
    explicit ConcurrentCard(QWidget *parent = nullptr);

    void showPick(const ConcurrentSpace &space, const ConcurrentProblem &problem, double sigmas,
                  const ConcurrentSpace::Choice &pick);
    // Nothing feasible: how many pairs meet each condition on its own, of `pairs`.
    void showNothing(const ConcurrentProblem &problem, int pairs, int keepUp, int meetLatency,
                     int meetPower);
    void showMessage(const QString &title, const QString &text);

    // The pair shown, -1 when none.
    int pair() const { return m_pair; }
    QString titleText() const;
    QString bodyText() const;

    void setApplyAvailable(bool available, const QString &why);
    void showApplyProgress(const QString &text, bool counting);
    void showApplyResult(bool kept, const QString &text);
    QString applyStatusText() const;
    QPushButton *applyButton() const { return m_apply; }
    QPushButton *cancelApplyButton() const { return m_cancelApply; }
    QPushButton *keepNowButton() const { return m_keepNow; }
    QPushButton *verifyButton() const { return m_verify; }

Q_SIGNALS:
    void applyRequested(const ptwb::PowerMode &mode);
    void cancelApplyRequested();
    void keepNowRequested();
    void verifyRequested();

private:
    void updateApplyButton();

    QLabel *m_title;
    QLabel *m_mode;
    QLabel *m_numbers;
    QLabel *m_source;
    QLabel *m_applyStatus;
    QPushButton *m_apply;
    QPushButton *m_cancelApply;
    QPushButton *m_keepNow;
    QPushButton *m_verify;
    int m_pair = -1;
    PowerMode m_pickMode;
    bool m_applyAvailable = false;
    bool m_applying = false;
    QString m_applyWhy;
};

}  // namespace ptwb::ui
