#pragma once

#include "concurrent/concurrentevaluation.h"
#include "concurrent/concurrentspace.h"

namespace ptwb {
class Store;
}

namespace ptwb::workflows {

// Measurements of one workload from a CSV file in the public layout (training, or inference
// with a `bs` column), for a device kind's mode space. Errors are bad input about `field` and
// name the file and line.
Expected<QVector<Measurement>> readMeasurementsFile(const QString &path, const QString &deviceKind,
                                                    InputField field);

// The files of a concurrent evaluation (`ptwb evaluate-concurrent`, the Compare view).
struct ConcurrentFiles
{
    QString training;
    QString inference;
    QString trainingReference;  // for pt and safe
    QString inferenceReference;  // optional
    QString deviceKind = QStringLiteral("orin-agx");
};

// Reads the files, joins the pair and sets up an evaluator with its references (read only when
// a strategy needs them; pt and safe without a training reference are bad input).
Expected<ConcurrentEvaluator> concurrentEvaluator(const ConcurrentFiles &files,
                                                  const ConcurrentEvaluationOptions &options);

// A workload of the store on one device (`device` "": the one it was measured on, when only one).
struct StoredWorkload
{
    QString device;
    QString workload;  // "": none (for the optional references)
};

// The stored workloads of a concurrent evaluation (the Compare view).
struct ConcurrentWorkloads
{
    StoredWorkload training;
    StoredWorkload inference;
    StoredWorkload trainingReference;  // for pt and safe
    StoredWorkload inferenceReference;  // optional
};

// The same evaluator from stored workloads: the training ones from Store::measurements, the
// inference ones from Store::inferenceMeasurements, set up by the same code as the files'. The
// device kind is the training workload's device's.
Expected<ConcurrentEvaluator> concurrentEvaluator(Store &store,
                                                  const ConcurrentWorkloads &workloads,
                                                  const ConcurrentEvaluationOptions &options);

// A training and an inference workload of the store on one device as every (mode, batch)
// pair: the training workload's newest model for its unmeasured modes, the inference workload's
// measured pairs calibrating the rest (`ptwb recommend-concurrent`, Explore's concurrent mode).
// `device` "" finds the device when the training workload was measured on one only.
Expected<ConcurrentSpace> loadConcurrentSpace(Store &store, const QString &device,
                                              const QString &trainingWorkload,
                                              const QString &inferenceWorkload);

}  // namespace ptwb::workflows
