#pragma once

#include "command.h"
#include "sweeprunner.h"

namespace ptwb::cli {

// --target for the device commands: sim:KIND (the simulated Jetson, with --sim-* options) and
// ssh://USER@HOST[:PORT] (with the SSH options), several separated by commas for a fleet.
void addSimulatorOptions(QCommandLineParser &parser);
void addSshOptions(QCommandLineParser &parser);

struct TargetDevices
{
    QVector<SweepDevice> devices;
    QString kind;  // the one device kind of them all
    QString display;  // their names, comma separated
    bool simulated = true;  // all of them simulated (sim:, or ssh:// with --remote-simulator)
};

// One SweepDevice per --target; several simulated devices get a state directory each.
// `defaultSpeed` is the simulator's clock when --sim-speed is not given.
Expected<TargetDevices> targetDevices(const QCommandLineParser &parser, double defaultSpeed);

}  // namespace ptwb::cli
