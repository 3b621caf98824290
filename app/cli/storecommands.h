#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb import FILE.csv --db DB --device D --workload W
class ImportCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("import"); }
    QString summary() const override
    {
        return QStringLiteral("Import measurements in the public PowerTrain CSV layout.");
    }
    QString positionalSyntax() const override { return QStringLiteral("FILE.csv"); }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

// ptwb export --db DB --workload W --out FILE.csv
class ExportCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("export"); }
    QString summary() const override
    {
        return QStringLiteral("Export a workload's measurements in the PowerTrain CSV layout.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

// ptwb workloads --db DB
class WorkloadsCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("workloads"); }
    QString summary() const override
    {
        return QStringLiteral("List the devices and workloads in a database.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
