#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb verify-concurrent --target T --train W --infer W2 --arrival-rate 60 --batch 16 --mode M
//   [--train-batch 16] [--duration S] [--keep] [--db DB [--device NAME] [--stored-train W]
//   [--stored-infer W]] [--latency-budget L]
//   [--power-budget P]
class VerifyConcurrentCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("verify-concurrent"); }
    QString summary() const override
    {
        return QStringLiteral("Run training and inference together on the device at a mode and "
                              "batch size; measured latency, throughput and power against the "
                              "formulas and the prediction.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
    QString optionFor(InputField field) const override;
};

}  // namespace ptwb::cli
