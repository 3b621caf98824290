#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb import FILE.csv|DIR --db DB --device D --workload W [--dry-run]
class ImportCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("import"); }
    QString summary() const override
    {
        return QStringLiteral("Import measurements: a PowerTrain CSV, or the study's raw run "
                              "folders.");
    }
    QString positionalSyntax() const override { return QStringLiteral("FILE.csv|DIR"); }
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
