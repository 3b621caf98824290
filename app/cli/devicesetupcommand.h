#pragma once

#include "command.h"

namespace ptwb::cli {

// `ptwb device setup --target ssh://USER@HOST`: installs the privileged helper on the device
// (workflows/devicesetup.h), asking for the sudo password on the terminal without echo, or
// reading it from the first line of standard input with --password-stdin.
class DeviceCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("device"); }
    QString summary() const override
    {
        return QStringLiteral("device setup: install the root-owned helper that changes clocks.");
    }
    QString positionalSyntax() const override { return QStringLiteral("setup"); }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
