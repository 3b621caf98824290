#pragma once

#include "command.h"
#include "store/convergence.h"

#include <optional>

namespace ptwb::cli {

// `ptwb convergence --proxy`: samples to accuracy measured by a proxy run on a device
// (workflows/proxyconvergence.h). Its options beside ConvergenceCommand's.
void addProxyConvergenceOptions(QCommandLineParser &parser);
// The first option given that only --proxy takes, without dashes; empty when none is.
QString proxyOnlyOptionSet(const QCommandLineParser &parser);
// Runs the proxy training of the options (progress on stderr; with --json one object per batch
// size on stdout) and returns the relation of the batch sizes that reached the target, or why
// there is none (a bad option names its flag). `batchSizes` is --batch-sizes as read.
Expected<ConvergenceRelation> proxyConvergence(const QCommandLineParser &parser, Output &output,
                                               const QVector<int> &batchSizes);

}  // namespace ptwb::cli
