#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb evaluate-batch --workload W --reference-workload R --power-budgets LIST [--samples N]
//   [--repeats R] [--seed S] [--objective time|energy] [--proxy-samples FILE.csv] [--json]
// The study's batch-size baselines and ours against the oracle, on a workload measured at
// every mode of several batch sizes.
class EvaluateBatchCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("evaluate-batch"); }
    QString summary() const override
    {
        return QStringLiteral("Compare batch-size and mode co-selection against the oracle, "
                              "time (energy) to accuracy under power caps.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
    QString optionFor(InputField field) const override;
};

}  // namespace ptwb::cli
