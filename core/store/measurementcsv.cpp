#include "store/measurementcsv.h"

#include "modes/plausibility.h"
#include "util/csvfield.h"
#include "util/numbertext.h"

#include <QHash>
#include <QPair>
#include <QSet>

#include <algorithm>
#include <array>
#include <cmath>

namespace ptwb::MeasurementCsv {

namespace {

using CsvField::parseWhole;
using CsvField::unquote;

// The first six are required. Batch (bs) is present only in the inference layout, where it comes
// after the time; TrainingBatch (batch_size: the training minibatch size) and PeakPower
// (peak_power: the largest power sample of the window) are optional extensions.
enum Column { Cores, Cpu, Gpu, Mem, Time, Power, Batch, TrainingBatch, PeakPower, ColumnCount };
constexpr int kRequiredColumns = Batch;

const std::array<const char *, ColumnCount> kColumnNames = {
    "cores",          "cpu", "gpu",        "mem",       "observed_time",
    "observed_power", "bs",  "batch_size", "peak_power"};

QString columnList()
{
    return columns().join(QLatin1Char(','));
}

QString inferenceColumnList()
{
    return inferenceColumns().join(QLatin1Char(','));
}

QString bothLayouts()
{
    return QStringLiteral("%1 (training) or %2 (inference), optionally with batch_size "
                          "(training) and peak_power")
        .arg(columnList(), inferenceColumnList());
}

class RowParser
{
public:
    RowParser(const QString &fileName, const ModeSpace &space,
              const std::array<int, ColumnCount> &position)
        : m_fileName(fileName)
        , m_space(space)
        , m_position(position)
        , m_ranges(plausibleRangesFor(space.device()))
    {
    }

    // Fills `out` or returns the error for `line`.
    QString parse(const QList<QByteArray> &fields, int line, Measurement *out) const
    {
        if (m_position[Batch] >= 0) {
            if (QString problem = batch(fields, line, Batch,
                                        QStringLiteral("an inference minibatch size in requests"),
                                        &out->inferenceBatch);
                !problem.isEmpty())
                return problem;
        }
        out->trainingBatch = m_position[Batch] >= 0 ? 0 : kPublicTrainingBatch;
        if (m_position[TrainingBatch] >= 0) {
            if (QString problem =
                    batch(fields, line, TrainingBatch, QStringLiteral("a training minibatch size"),
                          &out->trainingBatch);
                !problem.isEmpty())
                return problem;
        }
        for (int column = Cores; column <= Mem; ++column) {
            const Dimension dimension = kAllDimensions[column];
            const QByteArray text = unquote(fields[m_position[column]]);
            qint64 value = 0;
            if (!parseWhole(text, &value)) {
                const QString expected = column == Cores
                    ? QStringLiteral("is not a whole number of cores")
                    : QStringLiteral("is not a frequency in %1").arg(dimensionUnit(dimension));
                return error(line, column, QStringLiteral("'%1' %2").arg(text, expected));
            }
            const QString problem = m_space.checkValue(dimension, value);
            if (!problem.isEmpty())
                return error(line, column, problem);
            out->mode.setValue(dimension, value);
        }
        QString problem =
            positive(fields, line, Time, QStringLiteral("time in milliseconds"), &out->timeMs);
        if (problem.isEmpty())
            problem = plausible(line, Time, out->timeMs, m_ranges.minibatchMs);
        if (problem.isEmpty())
            problem = positive(fields, line, Power, QStringLiteral("power in watts"), &out->powerW);
        if (problem.isEmpty())
            problem = plausible(line, Power, out->powerW, m_ranges.powerW);
        if (problem.isEmpty() && m_position[PeakPower] >= 0) {
            double peak = 0;
            problem =
                positive(fields, line, PeakPower, QStringLiteral("peak power in watts"), &peak);
            if (problem.isEmpty())
                problem = plausible(line, PeakPower, peak, m_ranges.powerW);
            if (problem.isEmpty() && peak < out->powerW) {
                problem = error(line, PeakPower,
                                QStringLiteral("%1 W is below the row's median power %2 W; "
                                               "expected the largest power sample")
                                    .arg(peak)
                                    .arg(out->powerW));
            }
            out->peakPowerW = peak;
        }
        return problem;
    }

private:
    QString error(int line, int column, const QString &what) const
    {
        return QStringLiteral("%1:%2: column '%3': %4")
            .arg(m_fileName)
            .arg(line)
            .arg(QLatin1String(kColumnNames[column]), what);
    }

    QString positive(const QList<QByteArray> &fields, int line, int column, const QString &what,
                     double *out) const
    {
        const QByteArray text = unquote(fields[m_position[column]]);
        bool ok = false;
        const double value = text.toDouble(&ok);
        if (!ok || !std::isfinite(value))
            return error(line, column,
                         QStringLiteral("'%1' is not a number; expected a %2").arg(text, what));
        if (value <= 0)
            return error(line, column,
                         QStringLiteral("'%1' must be a positive %2").arg(text, what));
        *out = value;
        return {};
    }

    // Within what the device can measure (plausibility.h): 1e300 ms is no minibatch time.
    QString plausible(int line, int column, double value, const PlausibleRange &range) const
    {
        const QString problem = implausibleValue(QString(), value, range, m_ranges.device);
        return problem.isEmpty() ? problem : error(line, column, problem);
    }

    // A whole minibatch size; "64.0" is how the public inference files write 64.
    QString batch(const QList<QByteArray> &fields, int line, int column, const QString &what,
                  int *out) const
    {
        const QByteArray text = unquote(fields[m_position[column]]);
        qint64 value = 0;
        if (text.isEmpty())
            return error(line, column,
                         QStringLiteral("empty; expected %1 (1 to %2)").arg(what).arg(kMaxBatch));
        if (!parseWhole(text, &value)) {
            return error(line, column,
                         QStringLiteral("'%1' is not a whole number; expected %2 (1 to %3)")
                             .arg(QString::fromUtf8(text), what)
                             .arg(kMaxBatch));
        }
        if (value < 1 || value > kMaxBatch) {
            return error(line, column,
                         QStringLiteral("'%1' is out of range; expected %2 (1 to %3)")
                             .arg(QString::fromUtf8(text), what)
                             .arg(kMaxBatch));
        }
        *out = int(value);
        return {};
    }

    const QString &m_fileName;
    const ModeSpace &m_space;
    const std::array<int, ColumnCount> &m_position;
    const PlausibleRanges m_ranges;
};

}  // namespace

QStringList columns()
{
    QStringList names;
    for (int column = 0; column < kRequiredColumns; ++column)
        names.append(QLatin1String(kColumnNames[column]));
    return names;
}

QStringList inferenceColumns()
{
    QStringList names = columns();
    names.insert(Time + 1, QLatin1String(kColumnNames[Batch]));
    return names;
}

Expected<Parsed> parse(const QByteArray &input, const QString &fileName, const ModeSpace &space)
{
    const auto bad = [](const QString &message) {
        return Expected<Parsed>::failure(message, ErrorKind::BadInput);
    };
    const CsvField::Lines file = CsvField::Lines::of(input);
    const QList<QByteArray> &lines = file.lines;
    const bool endsWithNewline = file.endsWithNewline;
    const int lastContent = file.lastContent;
    if (lastContent < 0) {
        return bad(QStringLiteral("%1:1: the file is empty; expected the header line '%2'")
                       .arg(fileName, columnList()));
    }

    // Header: exactly the six columns, or the seven of the inference layout, in any order.
    const int headerLine = file.header;
    std::array<int, ColumnCount> position;
    position.fill(-1);
    const QList<QByteArray> header = lines[headerLine].split(',');
    for (int i = 0; i < header.size(); ++i) {
        const QByteArray name = unquote(header[i]);
        const auto found = std::find(kColumnNames.begin(), kColumnNames.end(), name);
        if (found == kColumnNames.end()) {
            return bad(QStringLiteral("%1:%2: column '%3': not a column of the PowerTrain layout; "
                                      "expected %4")
                           .arg(fileName)
                           .arg(headerLine + 1)
                           .arg(QString::fromUtf8(name), bothLayouts()));
        }
        int &slot = position[found - kColumnNames.begin()];
        if (slot >= 0) {
            return bad(QStringLiteral("%1:%2: column '%3': appears twice in the header")
                           .arg(fileName)
                           .arg(headerLine + 1)
                           .arg(QString::fromUtf8(name)));
        }
        slot = i;
    }
    const bool inference = position[Batch] >= 0;
    if (inference && position[TrainingBatch] >= 0) {
        return bad(QStringLiteral("%1:%2: column 'batch_size': a training minibatch size in an "
                                  "inference file (it has 'bs'); a file is one or the other")
                       .arg(fileName)
                       .arg(headerLine + 1));
    }
    const int fieldCount =
        int(std::count_if(position.cbegin(), position.cend(), [](int slot) { return slot >= 0; }));
    QStringList headerNames;  // as the file lists them: what every row must have
    for (const QByteArray &name : header)
        headerNames.append(QString::fromUtf8(unquote(name)));
    const QString headerColumns = headerNames.join(QLatin1Char(','));
    const QString expectedColumns = inference ? inferenceColumnList() : columnList();
    for (int column = 0; column < kRequiredColumns; ++column) {
        if (position[column] < 0) {
            return bad(QStringLiteral("%1:%2: column '%3': missing from the header; expected %4")
                           .arg(fileName)
                           .arg(headerLine + 1)
                           .arg(QLatin1String(kColumnNames[column]), expectedColumns));
        }
    }
    if (lastContent == headerLine) {
        return bad(QStringLiteral("%1:%2: no measurements after the header; expected rows of %3")
                       .arg(fileName)
                       .arg(headerLine + 2)
                       .arg(expectedColumns));
    }

    Parsed parsed;
    parsed.rows.reserve(lastContent - headerLine);
    // A repeat is the same mode at the same batch size (inference or training): one mode at five
    // batch sizes is five different measurements, not a mode measured five times.
    QHash<QPair<PowerMode, int>, int> seen;
    seen.reserve(lastContent - headerLine);
    QSet<PowerMode> modes;
    QSet<int> batches;
    const RowParser rowParser(fileName, space, position);
    for (int index = headerLine + 1; index <= lastContent; ++index) {
        const QByteArray &text = lines[index];
        if (text.trimmed().isEmpty())
            continue;
        const int line = index + 1;
        const QList<QByteArray> fields = text.split(',');
        if (const QString problem = CsvField::fieldCountProblem(
                fileName, line, fields.size(), fieldCount, index == lastContent && !endsWithNewline,
                headerColumns);
            !problem.isEmpty())
            return bad(problem);
        Measurement measurement;
        measurement.source = QStringLiteral("import");
        const QString problem = rowParser.parse(fields, line, &measurement);
        if (!problem.isEmpty())
            return bad(problem);
        const int batchKey = inference ? measurement.inferenceBatch : -measurement.trainingBatch;
        int &count = seen[qMakePair(measurement.mode, batchKey)];
        if (++count == 2)
            ++parsed.repeatedModes;
        modes.insert(measurement.mode);
        if (inference)
            batches.insert(measurement.inferenceBatch);
        parsed.rows.append(measurement);
    }
    parsed.distinctModes = modes.size();
    parsed.inferenceBatches = QVector<int>(batches.cbegin(), batches.cend());
    std::sort(parsed.inferenceBatches.begin(), parsed.inferenceBatches.end());
    return parsed;
}

QByteArray write(const QVector<Measurement> &rows)
{
    const bool inference = std::any_of(rows.cbegin(), rows.cend(),
                                       [](const Measurement &m) { return m.inferenceBatch > 0; });
    // The public layout stays as it is unless a row needs more: a training batch other than the
    // public files' 16, or a peak power.
    const bool trainingBatch =
        !inference && std::any_of(rows.cbegin(), rows.cend(), [](const Measurement &m) {
            return m.trainingBatch > 0 && m.trainingBatch != kPublicTrainingBatch;
        });
    const bool peak = std::any_of(rows.cbegin(), rows.cend(),
                                  [](const Measurement &m) { return m.peakPowerW.has_value(); });
    QByteArray out = (inference ? inferenceColumnList() : columnList()).toUtf8();
    if (trainingBatch)
        out.append(',').append(kColumnNames[TrainingBatch]);
    if (peak)
        out.append(',').append(kColumnNames[PeakPower]);
    out.append('\n');
    out.reserve(out.size() + rows.size() * 64);
    for (const Measurement &m : rows) {
        out.append(QByteArray::number(m.mode.cores)).append(',');
        out.append(QByteArray::number(m.mode.cpuKHz)).append(',');
        out.append(QByteArray::number(m.mode.gpuHz)).append(',');
        out.append(QByteArray::number(m.mode.emcHz)).append(',');
        appendShortest(out, m.timeMs);
        out.append(',');
        if (inference)
            out.append(QByteArray::number(m.inferenceBatch)).append(',');
        appendShortest(out, m.powerW);
        if (trainingBatch) {
            // unknown (0) is written as the public files' batch: the layout has no empty value
            out.append(',').append(
                QByteArray::number(m.trainingBatch > 0 ? m.trainingBatch : kPublicTrainingBatch));
        }
        if (peak) {
            out.append(',');
            appendShortest(out, m.peakPowerW.value_or(m.powerW));
        }
        out.append('\n');
    }
    return out;
}

}  // namespace ptwb::MeasurementCsv
