#pragma once

#include "command.h"
#include "deviceendpoint.h"
#include "modes/powermode.h"

namespace ptwb::cli {

// --target for the device commands: sim:KIND (the simulated Jetson, with --sim-* options) and
// ssh://USER@HOST[:PORT] (with the SSH options), several separated by commas for a fleet.
void addSimulatorOptions(QCommandLineParser &parser);
void addSshOptions(QCommandLineParser &parser);

// The devices of --target: one endpoint per target (workflows/deviceendpoint.h), with the
// simulator and SSH options; several simulated devices get a state directory each.
// `defaultSpeed` is the simulator's clock when --sim-speed is not given. With `needKinds`, an SSH
// device given no --kind is asked first what it is (workflows::withReportedKinds): what is
// planned for it then comes from its own tables.
Expected<QVector<workflows::DeviceEndpoint>>
targetDevices(const QCommandLineParser &parser, double defaultSpeed, bool needKinds = false);

// One device of --target and the --mode it should run, read with that device's own table
// (ptwb apply, ptwb verify-concurrent); `command` names the command in the error for several
// devices. Errors are bad input that name their option.
struct TargetAndMode
{
    workflows::DeviceEndpoint device;
    PowerMode mode;
};
Expected<TargetAndMode> oneTargetAndMode(const QCommandLineParser &parser, double defaultSpeed,
                                         const QString &command);

}  // namespace ptwb::cli
