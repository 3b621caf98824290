#pragma once

#include <QLabel>
#include <QPointer>

namespace ptwb {
class DeviceClient;
struct DeviceInfo;
}  // namespace ptwb

namespace ptwb::ui {

// The status bar's word on the device: connecting, connected (model, L4T, current mode, and
// "simulated" when it is), or gone and why. Shows what a DeviceClient reports; decides nothing.
class DeviceStatusLabel : public QLabel
{
    Q_OBJECT

public:
    explicit DeviceStatusLabel(QWidget *parent = nullptr);

    // Follows `client` (not owned); null shows the offline state.
    void setClient(DeviceClient *client);

private:
    void showConnecting();
    void showReady(const DeviceInfo &info);
    void showGone(const QString &reason);

    QPointer<DeviceClient> m_client;
};

}  // namespace ptwb::ui
