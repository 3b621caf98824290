#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb recommend --objective time-to-accuracy|energy-to-accuracy --power-budget W: the training
// batch size and power mode with the least time (energy) to the target accuracy under the cap.
bool isAccuracyObjective(const QString &objective);
int recommendBatchAndMode(const QCommandLineParser &parser, Output &output);

}  // namespace ptwb::cli
