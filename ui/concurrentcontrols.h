#pragma once

#include "concurrent/concurrentproblem.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;

namespace ptwb::ui {

// The problem of Explore's concurrent mode: the arrival rate, the latency and power budget
// sliders and the safe pick with its confidence, each remembered (QSettings). Emits changed()
// whenever any of them moves.
class ConcurrentControls : public QWidget
{
    Q_OBJECT

public:
    static constexpr double kLatencyStepS = 0.01;
    static constexpr double kPowerStepW = 0.1;

    explicit ConcurrentControls(QWidget *parent = nullptr);

    ConcurrentProblem problem() const;
    // Standard deviations of the predictions kept inside the budgets (0: the safe pick is off).
    double sigmas() const;

    // The power slider's span (the pairs' cheapest to their hungriest); the budget stays where
    // it was when it still falls inside.
    void setPowerRange(double minW, double maxW);
    void setArrivalRate(double perSecond);
    void setLatencyBudget(double seconds);
    void setPowerBudget(double watts);

    QDoubleSpinBox *arrivalRateSpin() const { return m_rate; }
    QSlider *latencySlider() const { return m_latency; }
    QSlider *powerSlider() const { return m_power; }
    QCheckBox *safeSwitch() const { return m_safe; }
    QComboBox *confidenceChoice() const { return m_confidence; }

Q_SIGNALS:
    void changed();

private:
    void updateLabels();
    void remember();

    QDoubleSpinBox *m_rate;
    QSlider *m_latency;
    QSlider *m_power;
    QLabel *m_latencyValue;
    QLabel *m_powerValue;
    QCheckBox *m_safe;
    QComboBox *m_confidence;
};

}  // namespace ptwb::ui
