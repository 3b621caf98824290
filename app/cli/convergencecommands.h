#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb convergence --db DB --workload W (--import FILE.csv [--dataset-samples N] | --simulate
//   [--batch-sizes LIST] [--kind KIND] [--seed N] | --proxy --command CMD --target-accuracy A
//   --base-lr LR --base-batch B [--batch-sizes LIST] [--target T] [--timeout S] ... | --show)
// A workload's samples to accuracy per training minibatch size: stores one from a file, a proxy
// run on a device (proxyconvergencecommand.h) or the simulator's model (replacing the one
// before), or shows the stored one.
class ConvergenceCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("convergence"); }
    QString summary() const override
    {
        return QStringLiteral("Samples to accuracy per batch size: import, measure by a proxy "
                              "run, simulate or show.");
    }
    QString optionFor(InputField field) const override;
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
