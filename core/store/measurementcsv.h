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
// Columns may come in any order. CRLF line endings, a UTF-8 byte order mark, blank lines and a
// missing final newline are accepted. A mode listed more than once is kept as repeated
// measurements of that mode (see docs/data-format.md).
namespace MeasurementCsv {

QStringList columns();

struct Parsed
{
    QVector<Measurement> rows;  // in file order
    qint64 distinctModes = 0;
    qint64 repeatedModes = 0;  // modes that appear on more than one line
};

// Reads and validates a whole file without touching any store. Errors are bad input and read
// "FILE:LINE: column 'X': what was wrong, what was expected".
Expected<Parsed> parse(const QByteArray &data, const QString &fileName, const ModeSpace &space);

// Writes the same layout; every double in its shortest form that reads back to the same value.
QByteArray write(const QVector<Measurement> &rows);

}  // namespace MeasurementCsv

}  // namespace ptwb
