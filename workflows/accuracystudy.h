#pragma once

#include "predict/accuracybench.h"
#include "util/expected.h"

#include <QByteArray>
#include <QJsonObject>

#include <functional>

// The accuracy-vs-profiled-modes study (docs/prediction.md) on two workloads of a store, for the
// Models view's study and `ptwb bench accuracy --db`: loads the reference and the target the way
// the strategy comparison does (WorkloadData::load, either device kind) and runs AccuracyBench.
// Blocking (libtorch, SQLite): the window calls it on a worker; it opens its own store connection.
namespace ptwb::workflows {

struct AccuracyStudyRequest
{
    QString databasePath;
    QString referenceWorkload;
    QString referenceDevice;  // the store's device name; empty when the workload has one device
    QString targetWorkload;
    QString targetDevice;
    AccuracyBenchOptions options;
};

struct AccuracyStudyCallbacks
{
    std::function<bool()> cancelled;  // polled between repeats and during trainings
    std::function<void(int done, int total)> progress;  // AccuracyBench::setProgress
    std::function<void(const AccuracyRow &)> row;  // each row as it completes
    std::function<void(const QString &)> log;  // one line for a person
};

// Every row, sample size by sample size. Errors name the field: InputField::Reference for the
// reference workload, InputField::Workload for the target, else AccuracyBench's (Samples,
// Repeats, Methods, Configs). A cancelled run fails saying so, after reporting its complete rows.
Expected<QVector<AccuracyRow>> runAccuracyStudy(const AccuracyStudyRequest &request,
                                                const AccuracyStudyCallbacks &callbacks = {});

// A row as `ptwb bench accuracy --json` prints it: method, config, samples, repeats,
// time_mape and power_mape ({median, q1, q3}), seconds.
QJsonObject accuracyRowJson(const AccuracyRow &row);
// The same keys flattened ("time_mape_median"), one line per row after the header.
QByteArray accuracyRowsCsv(const QVector<AccuracyRow> &rows);

}  // namespace ptwb::workflows
