#pragma once

#include "optimize/tradeoffspace.h"
#include "recommendationcard.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace ptwb::ui {

// The Explore view's budget: a power slider and a time slider (the one moved last is the
// budget), the energy objective switch, the safe pick with its confidence (both remembered),
// and how time is shown (per minibatch or per epoch).
class BudgetControls : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kSteps = 1000;

    explicit BudgetControls(QWidget *parent = nullptr);

    // The ranges the sliders span (time in ms per minibatch).
    void setRanges(double minPowerW, double maxPowerW, double minTimeMs, double maxTimeMs);
    void setPowerBudget(double watts);
    void setTimeBudget(double ms);
    void setActive(Budget::Kind kind);
    void setMinibatchesPerEpoch(int minibatches);

    Budget budget() const;
    TimeUnit timeUnit() const;
    double powerBudgetW() const;
    double timeBudgetMs() const;

    QSlider *powerSlider() const { return m_power; }
    QSlider *timeSlider() const { return m_time; }
    QCheckBox *energySwitch() const { return m_energy; }
    QCheckBox *safeSwitch() const { return m_safe; }
    QComboBox *confidenceChoice() const { return m_confidence; }
    QSpinBox *epochSpin() const { return m_epoch; }

Q_SIGNALS:
    void budgetChanged(const ptwb::Budget &budget);
    void timeUnitChanged(const ptwb::ui::TimeUnit &unit);

private:
    double sliderValue(const QSlider *slider, double low, double high) const;
    static int sliderPosition(double value, double low, double high);
    void updateLabels();
    void emitBudget();

    QSlider *m_power;
    QSlider *m_time;
    QLabel *m_powerLabel;
    QLabel *m_timeLabel;
    QLabel *m_powerValue;
    QLabel *m_timeValue;
    QCheckBox *m_energy;
    QCheckBox *m_safe;
    QComboBox *m_confidence;
    QSpinBox *m_epoch;
    Budget::Kind m_active = Budget::Kind::Power;
    double m_minPower = 0;
    double m_maxPower = 1;
    double m_minTime = 0;
    double m_maxTime = 1;
};

}  // namespace ptwb::ui
