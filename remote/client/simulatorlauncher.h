#pragma once

#include "util/expected.h"

#include <QString>
#include <QStringList>

namespace ptwb {

class LocalProcessTransport;

// How to start the simulated Jetson: the real agent against a fake kernel tree, run by
// remote/simulator/ptwb_simjetson.py (docs/device-protocol.md). Everything a person sees of it
// says "simulated".
struct SimulatorOptions
{
    QString deviceKind = QStringLiteral("orin-agx");
    QString stateDirectory;  // empty: the per-user data directory
    double speed = 50;  // device seconds per wall second
    quint64 seed = 1;
    QStringList faults;  // "reject:gpu_hz=1300500000", "drop-after:3", "reboot-after:2", ...
};

class SimulatorLauncher
{
public:
    // Where the agent and simulator scripts are: $PTWB_REMOTE_DIR, the installed share
    // directory, or (only when running from the build tree) the source tree it was built from.
    static Expected<QString> scriptDirectory();
    static QString defaultStateDirectory(const QString &deviceKind);
    // A transport that starts the simulator; the caller owns it.
    static Expected<LocalProcessTransport *> transport(const SimulatorOptions &options);
};

}  // namespace ptwb
