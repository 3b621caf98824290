#pragma once

#include "command.h"

namespace ptwb::cli {

// ptwb train --workload W: a reference (or NN) model from the workload's measurements.
class TrainCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("train"); }
    QString summary() const override
    {
        return QStringLiteral("Train time and power predictors on a workload's measurements.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

// ptwb transfer --from REF --to W: PowerTrain from a reference model to W's profiled modes.
class TransferCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("transfer"); }
    QString summary() const override
    {
        return QStringLiteral("Adapt a reference model to a new workload's profiled modes "
                              "(PowerTrain).");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
    QString optionFor(InputField field) const override;
};

// ptwb predict --workload W: every mode of the device, to CSV or JSON.
class PredictCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("predict"); }
    QString summary() const override
    {
        return QStringLiteral("Predict time and power of every mode of a device with a model.");
    }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

// ptwb models: what the database holds.
class ModelsCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("models"); }
    QString summary() const override { return QStringLiteral("List the trained models."); }
    void addOptions(QCommandLineParser &parser) const override;
    int run(const QCommandLineParser &parser, Output &output) const override;
};

}  // namespace ptwb::cli
