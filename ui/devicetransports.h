#pragma once

#include "util/expected.h"

#include <QString>

class QWidget;

namespace ptwb {
class Transport;
}

namespace ptwb::ui {

struct DeviceEntry;

// The window's way from a target text to a transport (the caller owns it; hand it to a
// DeviceClient). sim:KIND starts the simulated Jetson; ssh://USER@HOST[:PORT] uploads and runs
// the agent, asking the person through dialogs over `window` (host key with its fingerprint,
// passphrase, password). `keyFile`, when given, is tried before the SSH agent's and the default
// keys; `sudo` runs the agent through `sudo -n`. A bad target is an error naming it.
Expected<Transport *> deviceTransport(const QString &target, bool sudo, QWidget *window,
                                      const QString &keyFile = QString());
// The same for an entry of the Devices panel.
Expected<Transport *> deviceTransport(const DeviceEntry &entry, QWidget *window);

}  // namespace ptwb::ui
