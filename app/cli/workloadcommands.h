#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb workload list [--device-kind K] | show NAME | add NAME [options] -- ARGV... | remove NAME
//   | test --target T NAME [--seconds S]
// The researcher's own workloads saved by name (workflows/workloads.h): listed beside the
// built-ins, added, shown, removed, and tried on a device before a sweep.
class WorkloadCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("workload"); }
    QString summary() const override
    {
        return QStringLiteral("Your own workloads: list, show, add, remove, test on a device.");
    }
    QString positionalSyntax() const override
    {
        return QStringLiteral("list | show NAME | add NAME [--] ARGV... | remove NAME | test NAME");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
    QString optionFor(InputField field) const override;
};

}  // namespace ptwb::cli
