#pragma once

#include "deviceendpoint.h"
#include "devicelist.h"
#include "util/expected.h"

#include <QObject>

#include <memory>

class QWidget;

namespace ptwb {
class DeviceClient;
struct DeviceInfo;
}  // namespace ptwb

namespace ptwb::ui {

// The window's connection to the device chosen in the Devices view: owns its DeviceClient, and
// tells the other views how to reach the same device for their own connections (a sweep's, an
// apply's). SSH questions are asked in dialogs over `window`.
class DeviceConnection : public QObject
{
    Q_OBJECT

public:
    explicit DeviceConnection(QWidget *window);
    ~DeviceConnection() override;

    // Replaces the connection (the old one closes); a bad target is an error naming it.
    Status connectTo(const DeviceEntry &entry);
    DeviceClient *client() const { return m_client.get(); }
    const DeviceEntry &entry() const { return m_entry; }
    bool isConnected() const { return m_client != nullptr; }
    // From the target (sim:KIND) or, for a real device, from its hello; empty until known.
    const QString &deviceKind() const { return m_kind; }
    // The name the store keeps its measurements under: simulated-KIND for a simulated Jetson
    // (never mistaken for a real one), the person's name for a real one.
    QString storeName() const { return m_endpoint.storeName; }

    // The device for a sweep's own connections (invalid when not connected).
    workflows::DeviceEndpoint sweepEndpoint() const;
    // The same for Apply: a simulated device keeps real time there, since the armed revert's
    // deadline is in device seconds and the countdown a person watches in wall seconds.
    workflows::DeviceEndpoint applyEndpoint() const;

Q_SIGNALS:
    // Before the old client is deleted; the kind is already the new device's when known.
    void clientChanged(ptwb::DeviceClient *client);
    void deviceKindChanged(const QString &kind);
    // Each hello of the connected device (a new connection, a reconnect): `address` its target.
    void helloReceived(const QString &address, const ptwb::DeviceInfo &info);

private:
    void onReady(const DeviceInfo &info);

    QWidget *m_window;
    DeviceEntry m_entry;
    workflows::DeviceEndpoint m_endpoint;
    QString m_kind;
    std::unique_ptr<DeviceClient> m_client;
};

}  // namespace ptwb::ui
