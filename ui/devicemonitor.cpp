#include "devicemonitor.h"

#include <cmath>

#include "deviceclient.h"

namespace ptwb::ui {

DeviceMonitor::DeviceMonitor(QObject *parent)
    : QObject(parent)
{
    m_timer.setInterval(kIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &DeviceMonitor::tick);
}

void DeviceMonitor::setClient(DeviceClient *client)
{
    if (m_client)
        m_client->disconnect(this);
    m_client = client;
    m_sample.clear();
    m_mode.clear();
    if (client) {
        connect(client, &DeviceClient::ready, this, &DeviceMonitor::updatePolling);
        connect(client, &DeviceClient::disconnected, this, &DeviceMonitor::updatePolling);
        connect(client, &DeviceClient::connecting, this, &DeviceMonitor::updatePolling);
        connect(client, &QObject::destroyed, this, &DeviceMonitor::updatePolling);
        // The device reverted a mode on its own (an unconfirmed apply).
        connect(client, &DeviceClient::unsolicitedEvent, this, &DeviceMonitor::refreshMode);
    }
    updatePolling();
}

void DeviceMonitor::setActive(bool active)
{
    m_active = active;
    updatePolling();
}

void DeviceMonitor::setSuspended(bool suspended)
{
    m_suspended = suspended;
    updatePolling();
}

void DeviceMonitor::updatePolling()
{
    const bool poll = m_active && !m_suspended && m_client && m_client->isReady();
    if (poll == m_timer.isActive())
        return;
    if (poll) {
        m_ticks = 0;
        m_timer.start();
        tick();  // the first sample at once, not after an interval
    } else {
        m_timer.stop();
    }
}

void DeviceMonitor::tick()
{
    if (!m_client || !m_client->isReady())
        return;
    if (++m_ticks % kModeEveryTicks == 0)
        refreshMode();
    if (m_sample && !m_sample->isFinished())
        return;  // the previous one is still out: a slow link or a busy agent
    // interval_ms is irrelevant for one sample (taken at once), but the agent requires >= 100.
    m_sample = m_client->samplePower(100, 1);
    connect(m_sample, &DeviceCall::eventReceived, this,
            [this](const QString &kind, const QJsonObject &event) {
                if (kind != QLatin1String("power"))
                    return;
                // A device's number: one that is no power reading (a string, NaN, infinite,
                // negative, 1e300) is dropped, not plotted.
                const QJsonValue watts = event.value(QLatin1String("total_w"));
                if (watts.isDouble() && std::isfinite(watts.toDouble()) && watts.toDouble() >= 0 &&
                    watts.toDouble() <= kMaxPlottedWatts)
                    Q_EMIT powerSampled(watts.toDouble());
            });
}

void DeviceMonitor::refreshMode()
{
    if (!m_client || !m_client->isReady() || (m_mode && !m_mode->isFinished()))
        return;
    m_mode = m_client->getMode();
    connect(m_mode, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
        if (!reply.ok)
            return;
        Expected<PowerMode> mode = modeFromJson(
            reply.result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"));
        if (mode)
            Q_EMIT modeRead(*mode);
    });
}

}  // namespace ptwb::ui
