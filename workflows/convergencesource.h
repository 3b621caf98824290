#pragma once

#include "store/convergence.h"
#include "util/expected.h"

#include <QString>
#include <QVector>

#include <optional>

// Where a workload's samples-to-accuracy relation comes from, for `ptwb convergence` and the
// window alike: a file the user gives, or the simulator's convergence model. Storing it is
// ConvergenceStore's job; these only read and check.
namespace ptwb::workflows {

// Runs the simulator's convergence model (remote/simulator/convergence.py, under python3 as the
// simulator is run) for `workload` at `batchSizes` (at least two) on a simulated `deviceKind`,
// with its run-to-run noise drawn from `seed`. Provenance "simulated": nothing here is measured.
// The model's bad-argument errors are bad input about the field they name (Workload, BatchSizes,
// DeviceKind); a model that does not answer within 30 s, or with more than 1 MiB, fails.
Expected<ConvergenceRelation> simulatedConvergence(const QString &workload,
                                                   const QVector<int> &batchSizes,
                                                   const QString &deviceKind, quint64 seed);

// Reads a samples-to-accuracy file (ConvergenceCsv) as `workload`'s relation, provenance "user",
// source the file's name. `datasetSamples` (training samples per epoch) turns a file of epochs
// into samples. Errors name the file and line.
Expected<ConvergenceRelation> importedConvergence(const QString &path, const QString &workload,
                                                  std::optional<double> datasetSamples);

}  // namespace ptwb::workflows
