#pragma once

#include "optimize/tradeoffspace.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace ptwb::ui {

// How time is shown: per minibatch in ms, or per epoch in s when the minibatches per epoch are
// known.
struct TimeUnit
{
    int minibatchesPerEpoch = 0;  // 0: per minibatch

    bool perEpoch() const { return minibatchesPerEpoch > 0; }
    double fromMs(double ms) const { return perEpoch() ? ms * minibatchesPerEpoch / 1000 : ms; }
    double toMs(double value) const
    {
        return perEpoch() ? value * 1000 / minibatchesPerEpoch : value;
    }
    QString symbol() const { return perEpoch() ? QStringLiteral("s") : QStringLiteral("ms"); }
    QString axisTitle() const;
    QString format(double ms) const;
    // "126.0 ± 53.6 ms": a prediction and one standard deviation; the value alone when the
    // spread is unknown (NaN).
    QString format(double ms, double stdMs) const;
};

// "29.99 ± 6.57 W", or "30.0 W" when the spread is unknown (NaN).
QString wattsWithSpread(double w, double stdW);

// The recommendation card of the Explore view: the chosen mode in both notations, its
// predicted and (when profiled) observed time, power and energy, and how it compares with MAXN
// and the best stock preset; below, the Apply button and the apply countdown.
class RecommendationCard : public QFrame
{
    Q_OBJECT

public:
    explicit RecommendationCard(QWidget *parent = nullptr);

    // A budget's answer.
    void showRecommendation(const TradeoffSpace &space, const Recommendation &r,
                            const Budget &budget, const TimeUnit &unit);
    // A mode the person clicked (or a search found: `title` says so).
    void showMode(const TradeoffSpace &space, int index, const TimeUnit &unit,
                  const QString &title = QString());
    void showMessage(const QString &title, const QString &text);

    // What the card shows: -1 when none.
    int index() const { return m_index; }
    bool fits() const { return m_fits; }
    QString titleText() const;
    QString bodyText() const;

    // The apply area: enabled or not (with why), the countdown, and the outcome.
    void setApplyAvailable(bool available, const QString &why);
    void showApplyProgress(const QString &text, bool counting);
    void showApplyResult(bool kept, const QString &text);
    // The apply area's line: the phase, the countdown or the outcome.
    QString applyStatusText() const;
    QPushButton *applyButton() const { return m_apply; }
    QPushButton *cancelApplyButton() const { return m_cancelApply; }
    QPushButton *keepNowButton() const { return m_keepNow; }

Q_SIGNALS:
    void applyRequested(int index);
    void cancelApplyRequested();
    void keepNowRequested();

private:
    void showIndex(const TradeoffSpace &space, int index, const TimeUnit &unit);
    QString comparisonLine(const Comparison &c, const QString &label) const;
    // The stock presets for reference: their time, power and energy, and whether they fit.
    void showPresets(const TradeoffSpace &space, const Budget *budget, const TimeUnit &unit);

    QLabel *m_title;
    QLabel *m_mode;
    QLabel *m_numbers;
    QLabel *m_gains;
    QLabel *m_presets;
    QLabel *m_applyStatus;
    QPushButton *m_apply;
    QPushButton *m_cancelApply;
    QPushButton *m_keepNow;
    int m_index = -1;
    bool m_fits = false;
    bool m_applyAvailable = false;
    bool m_applying = false;
};

}  // namespace ptwb::ui
