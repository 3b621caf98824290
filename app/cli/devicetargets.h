#pragma once

#include "command.h"
#include "deviceendpoint.h"

namespace ptwb::cli {

// --target for the device commands: sim:KIND (the simulated Jetson, with --sim-* options) and
// ssh://USER@HOST[:PORT] (with the SSH options), several separated by commas for a fleet.
void addSimulatorOptions(QCommandLineParser &parser);
void addSshOptions(QCommandLineParser &parser);

// The devices of --target: one endpoint per target (workflows/deviceendpoint.h), with the
// simulator and SSH options; several simulated devices get a state directory each.
// `defaultSpeed` is the simulator's clock when --sim-speed is not given.
Expected<QVector<workflows::DeviceEndpoint>> targetDevices(const QCommandLineParser &parser,
                                                           double defaultSpeed);

}  // namespace ptwb::cli
