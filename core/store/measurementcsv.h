#pragma once

#include "modes/modespace.h"
#include "store/measurement.h"
#include "util/expected.h"

#include <QByteArray>
#include <QStringList>
#include <QVector>

namespace ptwb {

// The public PowerTrain layout: one row per profiled mode,
//   cores,cpu,gpu,mem,observed_time,observed_power
// cores a count, cpu in kHz, gpu and mem in Hz, observed_time in ms, observed_power in W.
// The public inference layout (Fulcrum) adds the inference minibatch size after the time,
//   cores,cpu,gpu,mem,observed_time,bs,observed_power
// where observed_time is the time of one minibatch of bs requests. A file is one or the other:
// with the bs column every row is an inference measurement, without it every row is training.
// Two optional columns extend either layout: batch_size, the training minibatch size (training
// files only; without it every row is at 16, the public files' batch), and peak_power, the
// largest power sample of the row's window (W, not below observed_power).
// Columns may come in any order. CRLF line endings, a UTF-8 byte order mark, blank lines and a
// missing final newline are accepted. A mode listed more than once (at the same bs) is kept as
// repeated measurements of that mode (see docs/data-format.md).
namespace MeasurementCsv {

// The largest minibatch accepted, training or inference (requests per inference minibatch).
constexpr int kMaxBatch = 4096;
// The training minibatch size of the public files, and of a training file without batch_size.
constexpr int kPublicTrainingBatch = 16;

QStringList columns();  // the training layout
QStringList inferenceColumns();  // the inference layout, in the public files' order

struct Parsed
{
    QVector<Measurement> rows;  // in file order
    qint64 distinctModes = 0;  // power modes, whatever their inference batch sizes
    qint64 repeatedModes = 0;  // (mode, bs) pairs that appear on more than one line
    QVector<int> inferenceBatches;  // the distinct bs values, ascending; empty for training
};

// Reads and validates a whole file without touching any store. Errors are bad input and read
// "FILE:LINE: column 'X': what was wrong, what was expected".
Expected<Parsed> parse(const QByteArray &data, const QString &fileName, const ModeSpace &space);

// Writes the same layout; every double in its shortest form that reads back to the same value.
// The inference layout when any row has an inference batch size (the store never holds a
// workload that mixes the two, see Store::addImports).
QByteArray write(const QVector<Measurement> &rows);

}  // namespace MeasurementCsv

}  // namespace ptwb
