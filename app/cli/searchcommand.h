#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb search --target T --workload NAME --strategy gmd|bs --power-budget W [--apply]
class SearchCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("search"); }
    QString summary() const override
    {
        return QStringLiteral("Find the fastest mode within a power budget on the device, "
                              "profiling one mode at a time.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
