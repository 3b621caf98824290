#include "devicedetails.h"

#include "deviceclient.h"
#include "devicemonitor.h"
#include "plaintext.h"
#include "sparkline.h"
#include "transport.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

constexpr int kSparklineSeconds = 120;

QLabel *valueLabel(const QString &objectName, QWidget *parent)
{
    QLabel *label = plainLabel(parent);  // device text: never read as HTML
    label->setObjectName(objectName);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setWordWrap(true);
    return label;
}

QColor stateColour(DeviceDetailsView::State state)
{
    switch (state) {
    case DeviceDetailsView::State::Connecting:
        return QColor(0xd9, 0x8e, 0x04);
    case DeviceDetailsView::State::Connected:
        return QColor(0x2e, 0xa0, 0x43);
    case DeviceDetailsView::State::Disconnected:
        return QColor(0xd0, 0x3b, 0x3b);
    case DeviceDetailsView::State::NoClient:
        break;
    }
    return QColor(0x8a, 0x8a, 0x8a);
}

}  // namespace

DeviceDetailsView::DeviceDetailsView(QWidget *parent)
    : QWidget(parent)
    , m_monitor(new DeviceMonitor(this))
    , m_title(plainLabel(this))
    , m_target(plainLabel(this))
    , m_simulatedBadge(new QLabel(tr("SIMULATED"), this))
    , m_stateDot(new QLabel(QStringLiteral("●"), this))
    , m_stateText(valueLabel(QStringLiteral("deviceState"), this))
    , m_reconnect(new QPushButton(tr("Reco&nnect"), this))
    , m_setupHelper(new QPushButton(tr("Set up &helper…"), this))
    , m_model(valueLabel(QStringLiteral("deviceModel"), this))
    , m_l4t(valueLabel(QStringLiteral("deviceL4t"), this))
    , m_spec(valueLabel(QStringLiteral("deviceSpec"), this))
    , m_specNote(valueLabel(QStringLiteral("deviceSpecNote"), this))
    , m_bootId(valueLabel(QStringLiteral("deviceBootId"), this))
    , m_agent(valueLabel(QStringLiteral("deviceAgent"), this))
    , m_helper(valueLabel(QStringLiteral("deviceHelper"), this))
    , m_modeCanonical(valueLabel(QStringLiteral("deviceModeCanonical"), this))
    , m_modeShort(valueLabel(QStringLiteral("deviceModeShort"), this))
    , m_thermal(valueLabel(QStringLiteral("deviceThermal"), this))
    , m_sparkline(new Sparkline(this))
    , m_body(new QWidget(this))
{
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.4);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setObjectName(QStringLiteral("deviceTitle"));
    m_target->setObjectName(QStringLiteral("deviceTarget"));
    m_target->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_target->setForegroundRole(QPalette::PlaceholderText);
    // Amber on dark text reads in light and dark palettes alike.
    m_simulatedBadge->setStyleSheet(QStringLiteral(
        "QLabel { background: #f2c14e; color: #3a2a00; border-radius: 4px; padding: 1px 6px; "
        "font-weight: bold; }"));
    m_simulatedBadge->setToolTip(
        tr("A simulated Jetson: the real agent on a fake kernel, with times and power from a "
           "performance model. Its numbers are not measurements."));
    m_simulatedBadge->hide();
    m_reconnect->setObjectName(QStringLiteral("reconnect"));
    m_reconnect->setToolTip(tr("Start the device's agent again and ask who it is"));
    m_reconnect->hide();
    m_setupHelper->setObjectName(QStringLiteral("setupHelper"));
    m_setupHelper->setToolTip(tr("The device's privileged helper is missing, older than this "
                                 "workbench's or not safe to run: install this one (asks for "
                                 "your sudo password)"));
    m_setupHelper->hide();
    connect(m_setupHelper, &QPushButton::clicked, this, &DeviceDetailsView::setupRequested);
    connect(m_reconnect, &QPushButton::clicked, this, [this] {
        if (m_client)
            m_client->connectToDevice();
    });
    m_modeCanonical->setToolTip(tr("Canonical notation: cores / CPU kHz / GPU Hz / memory Hz"));
    m_modeShort->setForegroundRole(QPalette::PlaceholderText);
    m_modeCanonical->setWordWrap(false);
    m_modeShort->setWordWrap(false);
    m_modeShort->setToolTip(tr("Short notation: cores, CPU, GPU and memory clocks in GHz"));

    m_sparkline->setCapacity(kSparklineSeconds * 1000 / DeviceMonitor::kIntervalMs);
    m_sparkline->setSampleIntervalMs(DeviceMonitor::kIntervalMs);
    m_sparkline->setCaption(tr("Total power"));
    m_sparkline->setToolTip(tr("The device's total power, sampled every %1 ms; the last %2 "
                               "minutes are kept")
                                .arg(DeviceMonitor::kIntervalMs)
                                .arg(kSparklineSeconds / 60));
    connect(m_monitor, &DeviceMonitor::powerSampled, m_sparkline, &Sparkline::addSample);
    connect(m_monitor, &DeviceMonitor::modeRead, this, &DeviceDetailsView::showMode);

    auto *titleRow = new QHBoxLayout;
    titleRow->addWidget(m_title);
    titleRow->addWidget(m_simulatedBadge);
    titleRow->addStretch();

    auto *stateRow = new QHBoxLayout;
    stateRow->addWidget(m_stateDot, 0, Qt::AlignTop);
    stateRow->addWidget(m_stateText, 1);
    stateRow->addWidget(m_reconnect, 0, Qt::AlignTop);
    stateRow->addWidget(m_setupHelper, 0, Qt::AlignTop);

    auto *form = new QFormLayout;
    form->setLabelAlignment(Qt::AlignRight);
    form->addRow(tr("Model:"), m_model);
    form->addRow(tr("L4T release:"), m_l4t);
    form->addRow(tr("Power modes:"), m_spec);
    form->addRow(QString(), m_specNote);
    m_specNote->setStyleSheet(QStringLiteral("QLabel { color: #b06a00; }"));
    m_specNote->hide();
    m_spec->setToolTip(tr("The mode space the workbench plans sweeps, searches and recommendations "
                          "in for this device: the tables it reports"));
    form->addRow(tr("Boot id:"), m_bootId);
    form->addRow(tr("Agent:"), m_agent);
    form->addRow(tr("Privileged helper:"), m_helper);
    m_helper->setWordWrap(true);
    auto *modeRow = new QHBoxLayout;
    modeRow->addWidget(m_modeCanonical);
    modeRow->addWidget(m_modeShort);
    modeRow->addStretch();
    form->addRow(tr("Current mode:"), modeRow);
    form->addRow(tr("Hottest zone:"), m_thermal);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(titleRow);
    layout->addWidget(m_target);
    layout->addSpacing(6);
    layout->addLayout(stateRow);
    layout->addSpacing(6);
    // The readings, greyed out while they are only the last known ones.
    auto *bodyLayout = new QVBoxLayout(m_body);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->addLayout(form);
    bodyLayout->addSpacing(6);
    bodyLayout->addWidget(m_sparkline, 1);
    bodyLayout->addStretch(0);  // takes what is left once the sparkline is at its tallest
    layout->addWidget(m_body, 1);

    setClient(nullptr);
}

void DeviceDetailsView::setEntry(const DeviceEntry &entry)
{
    m_title->setText(entry.name);
    QString target = entry.target;
    if (!entry.keyFile.isEmpty())
        target += tr(" · key %1").arg(entry.keyFile);
    m_target->setText(target);
    m_simulatedBadge->setVisible(entry.simulated());
}

DeviceClient *DeviceDetailsView::client() const
{
    return m_client;
}

void DeviceDetailsView::setClient(DeviceClient *client)
{
    if (m_client)
        m_client->disconnect(this);
    m_client = client;
    m_monitor->setClient(client);
    m_sparkline->clear();
    clearInfo();
    setSpecNote(QString());
    if (!client) {
        setState(State::NoClient, tr("Not connected. Choose a device and press Connect."));
        return;
    }
    connect(client, &DeviceClient::connecting, this, [this] {
        setState(State::Connecting,
                 tr("Connecting to %1…").arg(m_client->transport()->description()));
    });
    connect(client, &DeviceClient::ready, this, &DeviceDetailsView::showInfo);
    connect(client, &DeviceClient::disconnected, this, [this](const QString &reason) {
        setState(State::Disconnected, tr("Disconnected: %1").arg(reason));
    });
    connect(client, &QObject::destroyed, this, [this] { setClient(nullptr); });
    if (client->isReady())
        showInfo(client->info());
    else if (client->transport() && client->transport()->isOpen())
        setState(State::Connecting,
                 tr("Connecting to %1…").arg(client->transport()->description()));
    else
        setState(State::Disconnected, tr("Disconnected."));
}

QString DeviceDetailsView::stateText() const
{
    return m_stateText->text();
}

void DeviceDetailsView::setState(State state, const QString &text)
{
    m_state = state;
    m_stateText->setText(text);
    m_stateDot->setStyleSheet(
        QStringLiteral("QLabel { color: %1; }").arg(stateColour(state).name()));
    m_reconnect->setVisible(state == State::Disconnected && m_client);
    updateSetupOffer();
    m_body->setEnabled(state == State::Connected);
    Q_EMIT stateChanged(state);
}

void DeviceDetailsView::showInfo(const DeviceInfo &info)
{
    setState(State::Connected,
             info.simulated ? tr("Connected to a simulated device") : tr("Connected"));
    m_simulatedBadge->setVisible(info.simulated);
    m_model->setText(info.model);
    m_l4t->setText(info.l4t.isEmpty() ? tr("unknown") : info.l4t);
    showSpec(info);
    m_bootId->setText(info.bootId);
    m_agent->setText(info.agentVersion);
    // The helper is what changes clocks: without it the device can be looked at, not changed.
    m_helper->setText(
        info.helperUsable()
            ? (info.simulated ? tr("simulated: the real helper, run as you "
                                   "against the simulated kernel")
                              : tr("installed and checked (owner, mode, content)"))
            : tr("%1 (Set up in the device list installs it)").arg(info.helperMessage));
    m_helper->setStyleSheet(info.helperUsable() ? QString()
                                                : QStringLiteral("QLabel { color: #d03b3b; }"));
    m_thermal->setText(info.hottestZone.isEmpty()
                           ? tr("no thermal zone reads")
                           : tr("%1 °C (%2)").arg(info.hottestC, 0, 'f', 1).arg(info.hottestZone));
    showMode(info.mode);
}

void DeviceDetailsView::showSpec(const DeviceInfo &info)
{
    const Expected<DeviceSpec> spec = info.kind.isEmpty()
        ? Expected<DeviceSpec>::failure(info.kindProblem)
        : DeviceSpec::lookup(info.kind);
    if (!spec) {
        m_spec->setText(tr("cannot be driven: %1").arg(spec.error()));
        m_spec->setStyleSheet(QStringLiteral("QLabel { color: #d03b3b; }"));
        return;
    }
    m_spec->setStyleSheet(QString());
    const QString origin = info.ownTables
        ? tr("its own tables, not the built-in %1 table").arg(spec->family())
        : tr("the built-in table");
    QString text = tr("%1 · %2 · %3").arg(info.kind, spec->summary(), origin);
    if (spec->values(Dimension::Emc).size() == 1 && info.emcHz.isEmpty())
        text += tr(" · memory clock fixed at %1 MHz: not controllable on this device")
                    .arg(spec->values(Dimension::Emc).front() / 1000000);
    m_spec->setText(text);
}

void DeviceDetailsView::setSpecNote(const QString &note)
{
    m_specNote->setText(note);
    m_specNote->setVisible(!note.isEmpty());
}

void DeviceDetailsView::updateSetupOffer()
{
    m_setupHelper->setVisible(m_client && !m_client->helperProblem().isEmpty() &&
                              !m_client->info().simulated);
}

void DeviceDetailsView::showMode(const PowerMode &mode)
{
    m_modeCanonical->setText(mode.toCanonical());
    m_modeShort->setText(mode.toShort());
}

void DeviceDetailsView::clearInfo()
{
    const QString none = QStringLiteral("—");
    for (QLabel *label :
         {m_model, m_l4t, m_spec, m_bootId, m_agent, m_helper, m_modeCanonical, m_thermal})
        label->setText(none);
    m_modeShort->clear();
}

void DeviceDetailsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_monitor->setActive(true);
}

void DeviceDetailsView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_monitor->setActive(false);
}

}  // namespace ptwb::ui
