#pragma once

#include "store/convergence.h"
#include "util/expected.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <optional>

namespace ptwb {

// A samples-to-accuracy (convergence) file: one row per training minibatch size,
//   batch_size,samples_to_target
// or with epochs_to_target instead of samples_to_target (epochs become samples given the
// dataset's samples per epoch), and optionally target_accuracy (a fraction of 1, the same on
// every row). When a file has both samples_to_target and epochs_to_target (convergence.py writes
// both), the samples are used and the epochs only checked to be positive numbers. Columns may
// come in any order. CRLF line endings, a UTF-8 byte order mark, blank lines and a missing final
// newline are accepted. Batch sizes are 1 to 4096, each once, at least two of them (see
// docs/data-format.md).
namespace ConvergenceCsv {

struct Parsed
{
    QVector<ConvergencePoint> points;  // ascending batch size
    std::optional<double> targetAccuracy;
    bool fromEpochs = false;  // the samples were epochs times the samples per epoch
};

// Reads and validates a whole file. Errors are bad input and read
// "FILE:LINE: column 'X': what was wrong; expected what"; a file of epochs without
// `samplesPerEpoch` is bad input about InputField::DatasetSamples.
Expected<Parsed> parse(const QByteArray &data, const QString &fileName,
                       std::optional<double> samplesPerEpoch = std::nullopt);

// Writes batch_size,samples_to_target (and target_accuracy when the relation has one), in the
// relation's order; every number in its shortest form that reads back to the same value.
QByteArray write(const ConvergenceRelation &relation);

}  // namespace ConvergenceCsv

}  // namespace ptwb
