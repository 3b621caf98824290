#pragma once

#include "util/expected.h"

#include <QStringList>

#include <functional>
#include <memory>

#include "devicetarget.h"
#include "sshoptions.h"

namespace ptwb {
class SshPrompts;
class Transport;
}  // namespace ptwb

// How the window and `ptwb` reach a device: from a target text (sim:KIND or
// ssh://USER@HOST[:PORT]) and connection options to an endpoint with a transport factory. Sweeps,
// Apply and the Devices view all connect through one (docs/architecture.md).
namespace ptwb::workflows {

struct ConnectionOptions
{
    // SSH devices.
    QStringList identityFiles;  // tried before the agent's and the default keys
    QString knownHostsPath;  // empty: ~/.ssh/known_hosts (or the ssh config's)
    QString sshConfigPath;  // empty: ~/.ssh/config
    // Asks the person about an unknown host key, a passphrase or a password; null refuses all.
    std::shared_ptr<SshPrompts> prompts;
    QString sshKind;  // the kind an SSH device is expected to be; empty: known after its hello
    // The SSH host runs the simulated Jetson of this kind from this installation (tests, demos):
    // the endpoint is then simulated.
    QString remoteSimulatorKind;
    // Simulated devices (sim:KIND, or the remote simulator).
    double simulatorSpeed = 50;  // device seconds per wall second; Apply wants real time (1)
    QStringList simulatorFaults;
    QString simulatorState;  // state directory; empty: the per-user default
    // The name a person gave a real device; measurements are stored under it (default: the kind).
    QString deviceName;
};

struct DeviceEndpoint
{
    QString name;  // what a person sees: "simulated Jetson AGX Orin (orin-agx)", "nvidia@orin"
    QString address;  // sim:orin-agx or ssh://nvidia@orin[:PORT]: logs, sweeps; never a secret
    QString kind;  // orin-agx, ...; empty for an SSH device until it has said hello
    bool simulated = true;
    // The store's device name: simulated-KIND for simulated data, which never passes for a real
    // device's; else the person's name for the device, or its kind.
    QString storeName;
    // A fresh transport for every (re)connect; the caller owns it (hand it to a DeviceClient).
    std::function<Expected<Transport *>()> connect;

    bool isValid() const { return bool(connect); }
};

// The SSH options of an ssh:// target with these connection options (nothing to run yet).
SshOptions sshOptionsFor(const DeviceTarget &target, const ConnectionOptions &options);

// "simulated-KIND": where simulated measurements are stored, in one place.
QString simulatedStoreName(const QString &kind);

// One device. A bad target is BadInput about InputField::Target.
Expected<DeviceEndpoint> endpoint(const QString &target, const ConnectionOptions &options);

// Several devices sharing one sweep (a fleet): all of one kind; several simulated ones get a
// state directory and a seed each. Targets may also be given as one comma-separated text.
Expected<QVector<DeviceEndpoint>> fleet(const QStringList &targets,
                                        const ConnectionOptions &options);

}  // namespace ptwb::workflows
