#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb sweep --target T[,T...] --workload NAME --modes all|random:N|grid:SPEC [--resume]
class SweepCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("sweep"); }
    QString summary() const override
    {
        return QStringLiteral("Profile a workload across power modes on one or more devices.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
