#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb bench import FILE.csv [--repeats N]: the speed figures of docs/benchmarks.md.
class BenchCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("bench"); }
    QString summary() const override
    {
        return QStringLiteral("Measure the workbench's own speed (bench import FILE.csv).");
    }
    QString positionalSyntax() const override { return QStringLiteral("import FILE.csv"); }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
