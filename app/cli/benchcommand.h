#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb bench import|accuracy|speed: the figures of docs/benchmarks.md.
class BenchCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("bench"); }
    QString summary() const override
    {
        return QStringLiteral(
            "Measure accuracy and speed (bench import FILE.csv|DIR, bench accuracy, "
            "bench speed).");
    }
    QString positionalSyntax() const override
    {
        return QStringLiteral("import FILE.csv | accuracy | speed");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;

private:
    int runImport(const QCommandLineParser &parser, Output &output) const;
    int runAccuracy(const QCommandLineParser &parser, Output &output) const;
    int runSpeed(const QCommandLineParser &parser, Output &output) const;
};

}  // namespace ptwb::cli
