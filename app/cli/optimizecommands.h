#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb recommend --workload W (--power-budget W | --time-budget MS) [--objective time|energy]
class RecommendCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("recommend"); }
    QString summary() const override
    {
        return QStringLiteral("Recommend a power mode for a power or time budget.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

// ptwb pareto --workload W [--source observed|predicted] [--out FILE.csv]
class ParetoCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("pareto"); }
    QString summary() const override
    {
        return QStringLiteral("Print or export the power/time Pareto front of a workload.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

// ptwb evaluate --reference REF.csv --target TGT.csv --samples 50 --budgets 17:50:1 ...
// ptwb evaluate --objective time-to-accuracy|energy-to-accuracy --db DB --workload W ...: the
// batch-size evaluation (batchevaluate.h), the same code as ptwb evaluate-batch.
class EvaluateCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("evaluate"); }
    QString summary() const override
    {
        return QStringLiteral("Compare mode-selection strategies over a range of power budgets.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
