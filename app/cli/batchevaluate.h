#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb evaluate --objective time-to-accuracy|energy-to-accuracy --workload W ... (or its alias
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
                              "time (energy) to accuracy under power caps (= ptwb evaluate "
                              "--objective time-to-accuracy).");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
    QString optionFor(InputField field) const override;
};

// The options the batch evaluation adds to `ptwb evaluate` (and evaluate-batch has): --db,
// --workload, --reference-workload, --power-budgets, --proxy-samples.
void addBatchEvaluationOptions(QCommandLineParser &parser);
// Runs the batch evaluation of the parsed options, the caps in `budgetsOption` (power-budgets,
// or evaluate's budgets); --samples, --repeats, --seed default to 20, 5 and 0 when not given.
int evaluateBatch(const QCommandLineParser &parser, Output &output, const QString &budgetsOption);

}  // namespace ptwb::cli
