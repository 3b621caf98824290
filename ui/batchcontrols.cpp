#include "batchcontrols.h"

#include <QButtonGroup>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QRadioButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>

#include <cmath>

namespace ptwb::ui {

namespace {

QString key(const char *what)
{
    return QStringLiteral("explore/batch/") + QLatin1String(what);
}

int steps(double value)
{
    return int(std::lround(value / BatchControls::kCapStepW));
}

}  // namespace

BatchControls::BatchControls(QWidget *parent)
    : QWidget(parent)
    , m_cap(new QSlider(Qt::Horizontal, this))
    , m_capValue(new QLabel(this))
    , m_objective(new QButtonGroup(this))
{
    m_cap->setObjectName(QStringLiteral("batchCapSlider"));
    m_cap->setPageStep(10);
    m_cap->setToolTip(tr("The most power the device may draw at its peak while training (arrow "
                         "keys step 0.1 W, Page Up/Down 1 W): a power cap binds on the peak, "
                         "not the median"));
    m_capValue->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("000.0 W")));
    m_capValue->setAlignment(Qt::AlignRight | Qt::AlignVCenter);

    auto *time = new QRadioButton(tr("&Time to accuracy"), this);
    time->setObjectName(QStringLiteral("batchObjectiveTime"));
    time->setToolTip(tr("The batch size and mode that reach the target accuracy soonest (as "
                        "ptwb recommend --objective time-to-accuracy)"));
    auto *energy = new QRadioButton(tr("&Energy to accuracy"), this);
    energy->setObjectName(QStringLiteral("batchObjectiveEnergy"));
    energy->setToolTip(tr("The batch size and mode that reach the target accuracy with the "
                          "least energy (as ptwb recommend --objective energy-to-accuracy)"));
    m_objective->addButton(time, int(AccuracyObjective::Time));
    m_objective->addButton(energy, int(AccuracyObjective::Energy));

    const QSettings settings;
    m_cap->setRange(steps(5), steps(60));
    m_cap->setValue(steps(settings.value(key("cap"), 30.0).toDouble()));
    const bool wantsEnergy =
        settings.value(key("objective")).toString() == QLatin1String("energy-to-accuracy");
    (wantsEnergy ? energy : time)->setChecked(true);

    auto *capLabel = new QLabel(tr("Power &cap (peak)"), this);
    capLabel->setBuddy(m_cap);
    auto *objectiveRow = new QHBoxLayout;
    objectiveRow->addWidget(time);
    objectiveRow->addWidget(energy);
    objectiveRow->addStretch();
    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(capLabel, 0, 0);
    layout->addWidget(m_cap, 0, 1);
    layout->addWidget(m_capValue, 0, 2);
    layout->addWidget(new QLabel(tr("Minimise"), this), 1, 0);
    layout->addLayout(objectiveRow, 1, 1, 1, 2);
    layout->setColumnStretch(1, 1);

    connect(m_cap, &QSlider::valueChanged, this, &BatchControls::remember);
    connect(m_objective, &QButtonGroup::idToggled, this, [this](int, bool checked) {
        if (checked)
            remember();
    });
    updateLabel();
}

double BatchControls::capW() const
{
    return m_cap->value() * kCapStepW;
}

AccuracyObjective BatchControls::objective() const
{
    return m_objective->checkedId() == int(AccuracyObjective::Energy) ? AccuracyObjective::Energy
                                                                      : AccuracyObjective::Time;
}

void BatchControls::setCapRange(double minW, double maxW)
{
    const double cap = capW();
    const QSignalBlocker block(m_cap);
    m_cap->setRange(int(std::floor(minW / kCapStepW)), int(std::ceil(maxW / kCapStepW)));
    m_cap->setValue(steps(cap));
    updateLabel();
}

void BatchControls::setCap(double watts)
{
    m_cap->setValue(steps(watts));
}

void BatchControls::setObjective(AccuracyObjective objective)
{
    m_objective->button(int(objective))->setChecked(true);
}

void BatchControls::updateLabel()
{
    m_capValue->setText(QStringLiteral("%1 W").arg(capW(), 0, 'f', 1));
}

void BatchControls::remember()
{
    QSettings settings;
    settings.setValue(key("cap"), capW());
    settings.setValue(key("objective"),
                      objective() == AccuracyObjective::Energy
                          ? QStringLiteral("energy-to-accuracy")
                          : QStringLiteral("time-to-accuracy"));
    updateLabel();
    Q_EMIT changed();
}

}  // namespace ptwb::ui
