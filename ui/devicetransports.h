#pragma once

#include "deviceendpoint.h"
#include "util/expected.h"

class QWidget;

namespace ptwb {
class Transport;
}

namespace ptwb::ui {

struct DeviceEntry;

// The window's way to a device of the Devices panel: the entry's options (its key file, tried
// before the SSH agent's and the default keys; its name, under which a real device's
// measurements are stored) and SSH questions asked in dialogs over `window` (host key with its
// fingerprint, passphrase, password). `simulatorSpeed`: the simulated device's clock (Apply
// wants real time).
workflows::ConnectionOptions connectionOptions(const DeviceEntry &entry, QWidget *window,
                                               double simulatorSpeed = 50);
// The same, as an endpoint. A bad target is BadInput naming it.
Expected<workflows::DeviceEndpoint> deviceEndpoint(const DeviceEntry &entry, QWidget *window,
                                                   double simulatorSpeed = 50);
// A transport to the entry's device, for a DeviceClient (the caller owns it).
Expected<Transport *> deviceTransport(const DeviceEntry &entry, QWidget *window);

}  // namespace ptwb::ui
