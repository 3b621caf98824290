#pragma once

#include "util/expected.h"

#include <QString>
#include <QVector>

#include <optional>

namespace ptwb {

// Where a relation between batch size and samples to accuracy came from (the store's words).
namespace ConvergenceProvenance {
inline constexpr char kUser[] = "user";  // entered or imported by the user
inline constexpr char kProxy[] = "proxy";  // measured by short proxy training runs
inline constexpr char kSimulated[] = "simulated";  // the simulator's convergence model
bool isKnown(const QString &provenance);
}  // namespace ConvergenceProvenance

// The training samples a workload needs to reach its target accuracy at one minibatch size.
struct ConvergencePoint
{
    int batchSize = 0;
    double samples = 0;

    bool operator==(const ConvergencePoint &other) const
    {
        return batchSize == other.batchSize && samples == other.samples;
    }
};

// A workload's relation between training minibatch size and the samples needed to reach a target
// accuracy. Larger minibatches make each sample cheaper on the device but, above the workload's
// critical batch size, need more samples to reach the same accuracy: time to accuracy is the
// time per sample times these samples.
struct ConvergenceRelation
{
    static constexpr int kMaxBatch = 4096;  // as the measurement files and sweeps
    static constexpr int kMinPoints = 2;  // one batch size relates nothing

    QString workload;
    QVector<ConvergencePoint> points;  // ascending batch size, each batch once
    std::optional<double> targetAccuracy;  // the accuracy the samples reach (0..1), if known
    QString provenance;  // ConvergenceProvenance
    QString source;  // a file name, or what produced it
    QString recordedAt;  // UTC, ISO 8601; set by the store when empty

    // Why the relation cannot be stored (no workload, fewer than two points, a batch out of
    // order, twice or out of 1..kMaxBatch, samples not positive, an unknown provenance); empty
    // when it can.
    QString problem() const;

    // Samples to the target at `batch`: exact at a known batch, interpolated log-log between its
    // neighbours (samples follow a power of the batch between two measured ones). Below the
    // smallest known batch it stays flat: small batches are in the perfect-scaling regime, where
    // the samples no longer shrink with the batch, and a falling extrapolation would promise
    // fewer samples than were ever measured. Above the largest it grows in proportion to the
    // batch (as many steps as at the largest batch, each of more samples): past the critical
    // batch size a larger batch saves no more steps, so this is the relation's large-batch
    // limit and never promises a saving beyond what was measured. NaN without points or for a
    // batch below 1.
    double samplesAt(int batch) const;
    // samplesAt(batch) / samplesAt(referenceBatch): the relation normalised to one batch size.
    double relativeSamples(int batch, int referenceBatch) const;
    // relativeSamples of every point, in the order of `points`.
    QVector<double> relativeTo(int referenceBatch) const;
    // The smallest batch size of the relation (0 without points).
    int smallestBatch() const { return points.isEmpty() ? 0 : points.front().batchSize; }
};

}  // namespace ptwb
