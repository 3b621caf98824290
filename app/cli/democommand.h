#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb demo: the whole flow on the simulated AGX Orin, printing each step as the command a
// person would type.
class DemoCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("demo"); }
    QString summary() const override
    {
        return QStringLiteral("Run the whole flow on the simulated AGX Orin, step by step.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
