#include "devicestatuslabel.h"

#include "deviceclient.h"
#include "plaintext.h"
#include "transport.h"

namespace ptwb::ui {

DeviceStatusLabel::DeviceStatusLabel(QWidget *parent)
    : QLabel(parent)
{
    setObjectName(QStringLiteral("deviceStatus"));
    setTextFormat(Qt::PlainText);  // the transport, the model and the reason come from outside
    setClient(nullptr);
}

void DeviceStatusLabel::setClient(DeviceClient *client)
{
    if (m_client)
        m_client->disconnect(this);
    m_client = client;
    if (!client) {
        setText(tr("No device connected · offline tables"));
        setToolTip(tr("The tables shown are the built-in ones. Start with --target sim:orin-agx "
                      "for the simulated Jetson."));
        return;
    }
    connect(client, &DeviceClient::connecting, this, &DeviceStatusLabel::showConnecting);
    connect(client, &DeviceClient::ready, this, &DeviceStatusLabel::showReady);
    connect(client, &DeviceClient::disconnected, this, &DeviceStatusLabel::showGone);
    if (client->isReady())
        showReady(client->info());
    else
        showConnecting();
}

void DeviceStatusLabel::showConnecting()
{
    setText(tr("Connecting to %1…").arg(m_client->transport()->description()));
    setToolTip(QString());
}

void DeviceStatusLabel::showReady(const DeviceInfo &info)
{
    // "Simulated" leads, so nobody mistakes the simulator's numbers for a device's.
    setText(info.simulated ? tr("Simulated device: %1").arg(info.summary()) : info.summary());
    QStringList tip {tr("Model: %1").arg(info.model), tr("Boot id: %1").arg(info.bootId),
                     tr("Agent: %1").arg(info.agentVersion),
                     tr("Power rails: %1").arg(info.rails.join(QStringLiteral(", "))),
                     tr("Current mode: %1").arg(info.mode.toCanonical())};
    if (info.simulated)
        tip.prepend(tr("A simulated Jetson: the real agent on a fake kernel, with times and power "
                       "from a performance model (docs/simulator.md)."));
    setToolTip(plainTip(tip.join(QLatin1Char('\n'))));
}

void DeviceStatusLabel::showGone(const QString &reason)
{
    setText(tr("Device disconnected: %1").arg(reason));
    setToolTip(tr("Device ▸ Reconnect (Ctrl+R) tries again."));
}

}  // namespace ptwb::ui
