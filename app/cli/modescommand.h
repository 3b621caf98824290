#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb modes --device D [--grid SPEC] [--list] [--presets] [--format F]
class ModesCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("modes"); }
    QString summary() const override
    {
        return QStringLiteral("Count or list the power modes of a device or of a sub-grid.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
