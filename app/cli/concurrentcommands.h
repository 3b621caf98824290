#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb evaluate-concurrent --train TRAIN.csv --infer INFER.csv [--train-reference REF.csv]
//   [--infer-reference REF_INFER.csv] --arrival-rates 30:120:10 --latency-budgets 0.5:2.0:0.1
//   --power-budgets 10:50:1 --strategies LIST --samples N --repeats R --seed S [--picks FILE]
class EvaluateConcurrentCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("evaluate-concurrent"); }
    QString summary() const override
    {
        return QStringLiteral("Compare strategies for concurrent training and inference over "
                              "arrival rates, latency and power budgets.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
    QString optionFor(InputField field) const override;
};

// ptwb recommend-concurrent --train W --infer W2 --arrival-rate 60 --latency-budget 1.0
//   --power-budget 25 [--safety SIGMAS]
class RecommendConcurrentCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("recommend-concurrent"); }
    QString summary() const override
    {
        return QStringLiteral("Recommend a power mode and inference batch size for training "
                              "while serving inference.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
