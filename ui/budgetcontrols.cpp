#include "budgetcontrols.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>

#include <cmath>

namespace ptwb::ui {

BudgetControls::BudgetControls(QWidget *parent)
    : QWidget(parent)
    , m_power(new QSlider(Qt::Horizontal, this))
    , m_time(new QSlider(Qt::Horizontal, this))
    , m_powerLabel(new QLabel(tr("&Power budget"), this))
    , m_timeLabel(new QLabel(tr("&Time budget"), this))
    , m_powerValue(new QLabel(this))
    , m_timeValue(new QLabel(this))
    , m_energy(new QCheckBox(tr("Minimise &energy instead"), this))
    , m_safe(new QCheckBox(tr("Sa&fe pick, with"), this))
    , m_confidence(new QComboBox(this))
    , m_epoch(new QSpinBox(this))
{
    for (QSlider *slider : {m_power, m_time}) {
        slider->setRange(0, kSteps);
        slider->setPageStep(kSteps / 20);
        slider->setSingleStep(1);
    }
    m_power->setObjectName(QStringLiteral("powerBudgetSlider"));
    m_time->setObjectName(QStringLiteral("timeBudgetSlider"));
    m_power->setToolTip(tr("The most power the device may draw: the fastest mode within it is "
                           "recommended (arrow keys step finely, Page Up/Down coarsely)"));
    m_time->setToolTip(tr("The longest a minibatch may take: the lowest-power mode within it "
                          "is recommended"));
    m_powerLabel->setBuddy(m_power);
    m_timeLabel->setBuddy(m_time);
    m_energy->setObjectName(QStringLiteral("energySwitch"));
    m_energy->setToolTip(tr("Within the budget, recommend the mode that uses the least energy "
                            "per minibatch rather than the fastest (or lowest-power) one"));
    m_safe->setObjectName(QStringLiteral("safeSwitch"));
    m_safe->setToolTip(tr("Recommend a predicted mode only when its predicted power (time, for a "
                          "time budget) fits with the model's uncertainty to spare; profiled "
                          "modes count with their measured values. The card says what the "
                          "margin costs."));
    m_confidence->setObjectName(QStringLiteral("safeConfidence"));
    for (double sigmas : {0.5, 1.0, 1.645}) {
        m_confidence->addItem(tr("%1 % confidence (%2 σ)")
                                  .arg(100 * Budget::confidenceOf(sigmas), 0, 'f', 0)
                                  .arg(sigmas),
                              sigmas);
    }
    m_confidence->setToolTip(tr("How sure the safe pick must be that the mode fits, assuming "
                                "normal prediction errors"));
    {
        const QSettings settings;
        m_safe->setChecked(settings.value(QStringLiteral("explore/safe"), false).toBool());
        const int level = m_confidence->findData(
            settings.value(QStringLiteral("explore/safeSigmas"), 1.0).toDouble());
        m_confidence->setCurrentIndex(level >= 0 ? level : 1);
    }
    m_confidence->setEnabled(m_safe->isChecked());
    m_epoch->setObjectName(QStringLiteral("minibatchesPerEpoch"));
    m_epoch->setRange(0, 10000000);
    m_epoch->setSingleStep(100);
    m_epoch->setSpecialValueText(tr("per minibatch"));
    m_epoch->setSuffix(tr(" minibatches per epoch"));
    m_epoch->setToolTip(tr("When the dataset's size is known, enter its minibatches per epoch "
                           "to see time and energy per epoch"));
    for (QLabel *value : {m_powerValue, m_timeValue}) {
        value->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("00000.0 ms")));
        value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }

    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_powerLabel, 0, 0);
    layout->addWidget(m_power, 0, 1);
    layout->addWidget(m_powerValue, 0, 2);
    layout->addWidget(m_timeLabel, 1, 0);
    layout->addWidget(m_time, 1, 1);
    layout->addWidget(m_timeValue, 1, 2);
    layout->addWidget(m_energy, 2, 0, 1, 3);
    layout->addWidget(m_safe, 3, 0);
    layout->addWidget(m_confidence, 3, 1, 1, 2);
    auto *shown = new QLabel(tr("Time &shown"), this);
    shown->setBuddy(m_epoch);
    layout->addWidget(shown, 4, 0);
    layout->addWidget(m_epoch, 4, 1, 1, 2);
    layout->setColumnStretch(1, 1);

    connect(m_power, &QSlider::valueChanged, this, [this] {
        m_active = Budget::Kind::Power;
        emitBudget();
    });
    connect(m_time, &QSlider::valueChanged, this, [this] {
        m_active = Budget::Kind::Time;
        emitBudget();
    });
    // Pressing a slider makes it the budget even before it moves.
    connect(m_power, &QSlider::sliderPressed, this, [this] { setActive(Budget::Kind::Power); });
    connect(m_time, &QSlider::sliderPressed, this, [this] { setActive(Budget::Kind::Time); });
    connect(m_energy, &QCheckBox::toggled, this, &BudgetControls::emitBudget);
    connect(m_safe, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(QStringLiteral("explore/safe"), on);
        m_confidence->setEnabled(on);
        emitBudget();
    });
    connect(m_confidence, &QComboBox::currentIndexChanged, this, [this] {
        QSettings().setValue(QStringLiteral("explore/safeSigmas"),
                             m_confidence->currentData().toDouble());
        emitBudget();
    });
    connect(m_epoch, &QSpinBox::valueChanged, this, [this] {
        updateLabels();
        Q_EMIT timeUnitChanged(timeUnit());
    });
    updateLabels();
}

int BudgetControls::sliderPosition(double value, double low, double high)
{
    if (!(high > low))
        return 0;
    return qBound(0, int(std::lround((value - low) / (high - low) * kSteps)), kSteps);
}

double BudgetControls::sliderValue(const QSlider *slider, double low, double high) const
{
    return low + (high - low) * slider->value() / double(kSteps);
}

void BudgetControls::setRanges(double minPowerW, double maxPowerW, double minTimeMs,
                               double maxTimeMs)
{
    // Keep the budgets where they were when they still fall inside.
    const double power = powerBudgetW();
    const double time = timeBudgetMs();
    m_minPower = minPowerW;
    m_maxPower = maxPowerW;
    m_minTime = minTimeMs;
    m_maxTime = maxTimeMs;
    const QSignalBlocker blockPower(m_power);
    const QSignalBlocker blockTime(m_time);
    m_power->setValue(sliderPosition(power, m_minPower, m_maxPower));
    m_time->setValue(sliderPosition(time, m_minTime, m_maxTime));
    updateLabels();
}

void BudgetControls::setPowerBudget(double watts)
{
    m_power->setValue(sliderPosition(watts, m_minPower, m_maxPower));
    m_active = Budget::Kind::Power;
    emitBudget();
}

void BudgetControls::setTimeBudget(double ms)
{
    m_time->setValue(sliderPosition(ms, m_minTime, m_maxTime));
    m_active = Budget::Kind::Time;
    emitBudget();
}

void BudgetControls::setActive(Budget::Kind kind)
{
    if (m_active == kind)
        return;
    m_active = kind;
    emitBudget();
}

void BudgetControls::setMinibatchesPerEpoch(int minibatches)
{
    m_epoch->setValue(minibatches);
}

double BudgetControls::powerBudgetW() const
{
    return sliderValue(m_power, m_minPower, m_maxPower);
}

double BudgetControls::timeBudgetMs() const
{
    return sliderValue(m_time, m_minTime, m_maxTime);
}

Budget BudgetControls::budget() const
{
    Budget b;
    b.kind = m_active;
    b.value = m_active == Budget::Kind::Power ? powerBudgetW() : timeBudgetMs();
    b.objective = m_energy->isChecked() ? Budget::Objective::Energy : Budget::Objective::Time;
    b.safetySigmas = m_safe->isChecked() ? m_confidence->currentData().toDouble() : 0;
    return b;
}

TimeUnit BudgetControls::timeUnit() const
{
    return TimeUnit {m_epoch->value()};
}

void BudgetControls::updateLabels()
{
    m_powerValue->setText(QStringLiteral("%1 W").arg(powerBudgetW(), 0, 'f', 1));
    m_timeValue->setText(timeUnit().format(timeBudgetMs()));
    // The budget in force reads bold; the other is only a position to go back to.
    for (auto [label, value, active] :
         {std::tuple {m_powerLabel, m_powerValue, m_active == Budget::Kind::Power},
          std::tuple {m_timeLabel, m_timeValue, m_active == Budget::Kind::Time}}) {
        QFont font = label->font();
        font.setBold(active);
        label->setFont(font);
        value->setFont(font);
        value->setEnabled(active);
    }
}

void BudgetControls::emitBudget()
{
    updateLabels();
    Q_EMIT budgetChanged(budget());
}

}  // namespace ptwb::ui
