#include "concurrentcontrols.h"

#include "optimize/tradeoffspace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>

#include <cmath>

namespace ptwb::ui {

namespace {

QString key(const char *what)
{
    return QStringLiteral("explore/concurrent/") + QLatin1String(what);
}

int steps(double value, double step)
{
    return int(std::lround(value / step));
}

}  // namespace

ConcurrentControls::ConcurrentControls(QWidget *parent)
    : QWidget(parent)
    , m_rate(new QDoubleSpinBox(this))
    , m_latency(new QSlider(Qt::Horizontal, this))
    , m_power(new QSlider(Qt::Horizontal, this))
    , m_latencyValue(new QLabel(this))
    , m_powerValue(new QLabel(this))
    , m_safe(new QCheckBox(tr("Sa&fe pick, with"), this))
    , m_confidence(new QComboBox(this))
{
    m_rate->setObjectName(QStringLiteral("arrivalRate"));
    m_rate->setRange(0.1, 10000);
    m_rate->setDecimals(1);
    m_rate->setSingleStep(5);
    m_rate->setSuffix(tr(" requests/s"));
    m_rate->setToolTip(tr("How many inference requests arrive per second (λ). The device runs "
                          "an inference batch each time b requests have arrived and trains in "
                          "between."));
    m_latency->setObjectName(QStringLiteral("latencyBudgetSlider"));
    m_latency->setRange(steps(0.05, kLatencyStepS), steps(4.0, kLatencyStepS));
    m_latency->setPageStep(10);
    m_latency->setToolTip(tr("The longest a request may wait for its answer: the first request of "
                             "a batch waits b/λ for the batch to fill, then for its inference"));
    m_power->setObjectName(QStringLiteral("concurrentPowerSlider"));
    m_power->setPageStep(10);
    m_power->setToolTip(tr("The most power the device may draw, training or serving (arrow keys "
                           "step 0.1 W, Page Up/Down 1 W)"));
    m_safe->setObjectName(QStringLiteral("concurrentSafeSwitch"));
    m_safe->setToolTip(tr("Judge predicted pairs with their uncertainty: times and power this "
                          "many standard deviations on the slow, hungry side must still meet the "
                          "budgets (as ptwb recommend-concurrent --safety). Measured pairs count "
                          "with their measured values."));
    m_confidence->setObjectName(QStringLiteral("concurrentSafeConfidence"));
    for (double sigmas : {0.5, 1.0, 1.645}) {
        m_confidence->addItem(tr("%1 % confidence (%2 σ)")
                                  .arg(100 * Budget::confidenceOf(sigmas), 0, 'f', 0)
                                  .arg(sigmas),
                              sigmas);
    }
    m_confidence->setToolTip(tr("How sure the safe pick must be, for each prediction, that it "
                                "meets the budgets (normal prediction errors)"));
    for (QLabel *value : {m_latencyValue, m_powerValue}) {
        value->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("000.00 W")));
        value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }

    const QSettings settings;
    m_rate->setValue(settings.value(key("arrivalRate"), 60.0).toDouble());
    m_power->setRange(steps(5, kPowerStepW), steps(60, kPowerStepW));
    m_latency->setValue(steps(settings.value(key("latencyBudget"), 1.0).toDouble(), kLatencyStepS));
    m_power->setValue(steps(settings.value(key("powerBudget"), 25.0).toDouble(), kPowerStepW));
    m_safe->setChecked(settings.value(key("safe"), false).toBool());
    const int level = m_confidence->findData(settings.value(key("safeSigmas"), 1.0).toDouble());
    m_confidence->setCurrentIndex(level >= 0 ? level : 1);
    m_confidence->setEnabled(m_safe->isChecked());

    auto *rateLabel = new QLabel(tr("Arrival &rate"), this);
    rateLabel->setBuddy(m_rate);
    auto *latencyLabel = new QLabel(tr("&Latency budget"), this);
    latencyLabel->setBuddy(m_latency);
    auto *powerLabel = new QLabel(tr("&Power budget"), this);
    powerLabel->setBuddy(m_power);
    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(rateLabel, 0, 0);
    layout->addWidget(m_rate, 0, 1, 1, 2);
    layout->addWidget(latencyLabel, 1, 0);
    layout->addWidget(m_latency, 1, 1);
    layout->addWidget(m_latencyValue, 1, 2);
    layout->addWidget(powerLabel, 2, 0);
    layout->addWidget(m_power, 2, 1);
    layout->addWidget(m_powerValue, 2, 2);
    layout->addWidget(m_safe, 3, 0);
    layout->addWidget(m_confidence, 3, 1, 1, 2);
    layout->setColumnStretch(1, 1);

    for (QSlider *slider : {m_latency, m_power})
        connect(slider, &QSlider::valueChanged, this, &ConcurrentControls::remember);
    connect(m_rate, &QDoubleSpinBox::valueChanged, this, &ConcurrentControls::remember);
    connect(m_safe, &QCheckBox::toggled, this, [this](bool on) {
        m_confidence->setEnabled(on);
        remember();
    });
    connect(m_confidence, &QComboBox::currentIndexChanged, this, &ConcurrentControls::remember);
    updateLabels();
}

ConcurrentProblem ConcurrentControls::problem() const
{
    return {m_rate->value(), m_latency->value() * kLatencyStepS, m_power->value() * kPowerStepW};
}

double ConcurrentControls::sigmas() const
{
    return m_safe->isChecked() ? m_confidence->currentData().toDouble() : 0;
}

void ConcurrentControls::setPowerRange(double minW, double maxW)
{
    const double budget = problem().powerBudgetW;
    const QSignalBlocker block(m_power);
    m_power->setRange(int(std::floor(minW / kPowerStepW)), int(std::ceil(maxW / kPowerStepW)));
    m_power->setValue(steps(budget, kPowerStepW));
    updateLabels();
}

void ConcurrentControls::setArrivalRate(double perSecond)
{
    m_rate->setValue(perSecond);
}

void ConcurrentControls::setLatencyBudget(double seconds)
{
    m_latency->setValue(steps(seconds, kLatencyStepS));
}

void ConcurrentControls::setPowerBudget(double watts)
{
    m_power->setValue(steps(watts, kPowerStepW));
}

void ConcurrentControls::updateLabels()
{
    const ConcurrentProblem p = problem();
    m_latencyValue->setText(QStringLiteral("%1 s").arg(p.latencyBudgetS, 0, 'f', 2));
    m_powerValue->setText(QStringLiteral("%1 W").arg(p.powerBudgetW, 0, 'f', 1));
}

void ConcurrentControls::remember()
{
    const ConcurrentProblem p = problem();
    QSettings settings;
    settings.setValue(key("arrivalRate"), p.arrivalRate);
    settings.setValue(key("latencyBudget"), p.latencyBudgetS);
    settings.setValue(key("powerBudget"), p.powerBudgetW);
    settings.setValue(key("safe"), m_safe->isChecked());
    settings.setValue(key("safeSigmas"), m_confidence->currentData().toDouble());
    updateLabels();
    Q_EMIT changed();
}

}  // namespace ptwb::ui
