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

// ptwb apply --target T --mode M [--confirm-within S]
class ApplyCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("apply"); }
    QString summary() const override
    {
        return QStringLiteral("Apply a power mode to a device; it reverts unless confirmed.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
