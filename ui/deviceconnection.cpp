#include "deviceconnection.h"

#include "deviceclient.h"
#include "devicetransports.h"

#include <QWidget>

namespace ptwb::ui {

DeviceConnection::DeviceConnection(QWidget *window)
    : QObject(window)
    , m_window(window)
{
}

DeviceConnection::~DeviceConnection() = default;

Status DeviceConnection::connectTo(const DeviceEntry &entry)
{
    Expected<workflows::DeviceEndpoint> endpoint = deviceEndpoint(entry, m_window);
    if (!endpoint)
        return passOn<Status>(endpoint);
    Expected<Transport *> transport = endpoint->connect();
    if (!transport)
        return passOn<Status>(transport);
    m_entry = entry;
    m_endpoint = std::move(endpoint).value();
    std::unique_ptr<DeviceClient> old = std::move(m_client);
    m_client = std::make_unique<DeviceClient>(*transport);
    connect(m_client.get(), &DeviceClient::ready, this, &DeviceConnection::onReady);
    // A simulated device's kind is in its target; a real one's comes with its hello.
    const QString kind = m_endpoint.simulated ? m_endpoint.kind : QString();
    const bool kindChanged = kind != m_kind;
    m_kind = kind;
    Q_EMIT clientChanged(m_client.get());
    if (kindChanged && !m_kind.isEmpty())
        Q_EMIT deviceKindChanged(m_kind);
    m_client->connectToDevice();
    old.reset();  // after the views have let go of it
    return {};
}

void DeviceConnection::onReady(const DeviceInfo &info)
{
    Q_EMIT helloReceived(m_endpoint.address, info);
    if (info.kind.isEmpty() || info.kind == m_kind)
        return;
    m_kind = info.kind;
    Q_EMIT deviceKindChanged(m_kind);
}

workflows::DeviceEndpoint DeviceConnection::sweepEndpoint() const
{
    if (!isConnected())
        return {};
    workflows::DeviceEndpoint endpoint = m_endpoint;
    endpoint.kind = m_kind;
    return endpoint;
}

workflows::DeviceEndpoint DeviceConnection::applyEndpoint() const
{
    if (!isConnected())
        return {};
    Expected<workflows::DeviceEndpoint> endpoint = deviceEndpoint(m_entry, m_window, 1);
    if (!endpoint)
        return {};
    endpoint->kind = m_kind;
    return std::move(endpoint).value();
}

}  // namespace ptwb::ui
