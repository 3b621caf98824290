#include "store/rawrunfiles.h"

#include "util/printable.h"

#include <QRegularExpression>

#include <cmath>

namespace ptwb::RawRunFiles {

namespace {

constexpr int kMaxRows = 1000000;
constexpr double kMaxMinibatchMs = 1e7;  // about 2.8 hours: anything longer is not a minibatch
constexpr double kMaxPowerMw = 500000;  // 500 W: far above any Jetson module

Expected<double> finiteNumber(const QByteArray &text)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value))
        return Expected<double>::failure(QString(), ErrorKind::BadInput);
    return value;
}

// The header's columns and the lines after it, with their 1-based line numbers.
struct Table
{
    QList<QByteArray> header;
    QVector<std::pair<int, QList<QByteArray>>> rows;
};

Expected<Table> readTable(const QByteArray &data, const QString &fileName,
                          const QStringList &required, int *positions)
{
    using Result = Expected<Table>;
    QList<QByteArray> lines = data.split('\n');
    int lineNumber = 0;
    Table table;
    for (QByteArray &line : lines) {
        ++lineNumber;
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.trimmed().isEmpty())
            continue;
        if (table.header.isEmpty()) {
            if (lineNumber == 1 && line.startsWith("\xEF\xBB\xBF"))
                line.remove(0, 3);
            table.header = splitCsvLine(line);
            for (QByteArray &name : table.header)
                name = name.trimmed();
            for (int i = 0; i < required.size(); ++i) {
                positions[i] = int(table.header.indexOf(required[i].toUtf8()));
                if (positions[i] < 0) {
                    return Result::failure(
                        QStringLiteral("%1:%2: no column '%3' in the header; expected the "
                                       "columns %4")
                            .arg(fileName)
                            .arg(lineNumber)
                            .arg(required[i], required.join(QStringLiteral(", "))),
                        ErrorKind::BadInput);
                }
            }
            continue;
        }
        QList<QByteArray> fields = splitCsvLine(line);
        if (fields.size() != table.header.size()) {
            return Result::failure(
                QStringLiteral("%1:%2: %3 fields, expected %4 as in the header (a truncated "
                               "or damaged file?)")
                    .arg(fileName)
                    .arg(lineNumber)
                    .arg(fields.size())
                    .arg(table.header.size()),
                ErrorKind::BadInput);
        }
        if (table.rows.size() >= kMaxRows) {
            return Result::failure(QStringLiteral("%1:%2: more than %3 rows; expected one run's "
                                                  "log")
                                       .arg(fileName)
                                       .arg(lineNumber)
                                       .arg(kMaxRows),
                                   ErrorKind::BadInput);
        }
        table.rows.append({lineNumber, std::move(fields)});
    }
    if (table.header.isEmpty())
        return Result::failure(QStringLiteral("%1: empty; expected a header line with %2")
                                   .arg(fileName, required.join(QStringLiteral(", "))),
                               ErrorKind::BadInput);
    return table;
}

QString fieldError(const QString &fileName, int line, const QString &column,
                   const QByteArray &value, const QString &expected)
{
    return QStringLiteral("%1:%2: column '%3': '%4' is not %5")
        .arg(fileName)
        .arg(line)
        .arg(column, printable(QString::fromUtf8(value.left(160)), 40), expected);
}

qint64 keyValue(const QString &line, const QString &key)
{
    const QRegularExpression pattern(QStringLiteral("\\b%1=(\\d{1,15})\\b").arg(key));
    const QRegularExpressionMatch match = pattern.match(line);
    return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

}  // namespace

QList<QByteArray> splitCsvLine(const QByteArray &line)
{
    QList<QByteArray> fields;
    QByteArray field;
    bool quoted = false;
    for (int i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.append(field);
            field.clear();
        } else {
            field += c;
        }
    }
    fields.append(field);
    return fields;
}

Expected<PowerMode> modeFromFolderName(const QString &name)
{
    static const QRegularExpression pattern(
        QStringLiteral("^pm_(\\d{1,3})_(\\d{1,12})_(\\d{1,13})_(\\d{1,13})$"));
    const QRegularExpressionMatch match = pattern.match(name);
    if (!match.hasMatch()) {
        return Expected<PowerMode>::failure(
            QStringLiteral("%1: not a run folder name; expected pm_<cores>_<cpu kHz>_<gpu Hz>_"
                           "<mem Hz>, e.g. pm_2_1344000_114750000_3199000000")
                .arg(printable(name)),
            ErrorKind::BadInput);
    }
    PowerMode mode;
    mode.cores = match.captured(1).toInt();
    mode.cpuKHz = match.captured(2).toLongLong();
    mode.gpuHz = match.captured(3).toLongLong();
    mode.emcHz = match.captured(4).toLongLong();
    return mode;
}

QString folderNameOf(const PowerMode &mode)
{
    return QStringLiteral("pm_") + mode.toUnderscore();
}

Expected<ClockDump> parseClockDump(const QByteArray &data, const QString &fileName)
{
    using Result = Expected<ClockDump>;
    static const QRegularExpression socLine(
        QStringLiteral("SOC family:\\s*(\\S+)\\s+Machine:\\s*(.*)$"));
    static const QRegularExpression cpuLine(QStringLiteral("^cpu(\\d{1,3}):"));
    ClockDump dump;
    bool sawCpu = false;
    bool sawGpu = false;
    bool sawEmc = false;
    int lineNumber = 0;
    for (const QByteArray &raw : data.split('\n')) {
        ++lineNumber;
        const QString line = QString::fromUtf8(raw).trimmed();
        if (const QRegularExpressionMatch match = socLine.match(line); match.hasMatch()) {
            dump.socFamily = printable(match.captured(1), 40);
            dump.machine = printable(match.captured(2).trimmed());
        } else if (cpuLine.match(line).hasMatch()) {
            sawCpu = true;
            const qint64 online = keyValue(line, QStringLiteral("Online"));
            const qint64 current = keyValue(line, QStringLiteral("CurrentFreq"));
            if (online < 0 || current < 0) {
                return Result::failure(QStringLiteral("%1:%2: expected 'Online=<0|1>' and "
                                                      "'CurrentFreq=<kHz>' on a CPU line")
                                           .arg(fileName)
                                           .arg(lineNumber),
                                       ErrorKind::BadInput);
            }
            if (online == 1) {
                ++dump.onlineCores;
                dump.onlineCpuKHz.append(current);
            }
        } else if (line.startsWith(QLatin1String("GPU ")) ||
                   line.startsWith(QLatin1String("EMC "))) {
            const qint64 current = keyValue(line, QStringLiteral("CurrentFreq"));
            if (current <= 0) {
                return Result::failure(QStringLiteral("%1:%2: expected 'CurrentFreq=<Hz>'")
                                           .arg(fileName)
                                           .arg(lineNumber),
                                       ErrorKind::BadInput);
            }
            if (line.startsWith(QLatin1String("GPU "))) {
                dump.gpuHz = current;
                sawGpu = true;
            } else {
                dump.emcHz = current;
                sawEmc = true;
            }
        }
    }
    const auto missing = [&fileName](const QString &what) {
        return Result::failure(QStringLiteral("%1: no %2; expected the nvpmodel/jetson_clocks "
                                              "dump the study's scripts write")
                                   .arg(fileName, what),
                               ErrorKind::BadInput);
    };
    if (dump.socFamily.isEmpty())
        return missing(QStringLiteral("'SOC family:... Machine:...' line"));
    if (!sawCpu)
        return missing(QStringLiteral("'cpuN: Online=...' lines"));
    if (!sawGpu)
        return missing(QStringLiteral("'GPU ... CurrentFreq=' line"));
    if (!sawEmc)
        return missing(QStringLiteral("'EMC ... CurrentFreq=' line"));
    return dump;
}

namespace {

struct TimedValue
{
    int line = 0;
    double value = 0;
    double atS = 0;
};

// Every row's `valueColumn`, which must lie in (0, maxValue], with its log_time (>= 0).
Expected<QVector<TimedValue>> readTimedValues(const QByteArray &data, const QString &fileName,
                                              const QString &valueColumn, double maxValue,
                                              const QString &expected)
{
    using Result = Expected<QVector<TimedValue>>;
    const QStringList required {valueColumn, QStringLiteral("log_time")};
    int position[2] = {};
    Expected<Table> table = readTable(data, fileName, required, position);
    if (!table)
        return passOn<Result>(table);
    QVector<TimedValue> out;
    out.reserve(table->rows.size());
    for (const auto &[line, fields] : table->rows) {
        const Expected<double> value = finiteNumber(fields[position[0]]);
        if (!value || *value <= 0 || *value > maxValue)
            return Result::failure(
                fieldError(fileName, line, required[0], fields[position[0]], expected),
                ErrorKind::BadInput);
        const Expected<double> at = finiteNumber(fields[position[1]]);
        if (!at || *at < 0)
            return Result::failure(fieldError(fileName, line, required[1], fields[position[1]],
                                              QStringLiteral("seconds from the run's start")),
                                   ErrorKind::BadInput);
        out.append({line, *value, *at});
    }
    return out;
}

}  // namespace

Expected<QVector<Minibatch>> parseEpochStats(const QByteArray &data, const QString &fileName)
{
    using Result = Expected<QVector<Minibatch>>;
    const Expected<QVector<TimedValue>> rows =
        readTimedValues(data, fileName, QStringLiteral("epochtime_ms"), kMaxMinibatchMs,
                        QStringLiteral("a minibatch time in milliseconds (above 0, at most 1e7)"));
    if (!rows)
        return passOn<Result>(rows);
    QVector<Minibatch> out;
    out.reserve(rows->size());
    for (const TimedValue &row : *rows) {
        if (!out.isEmpty() && row.atS < out.back().endS) {
            return Result::failure(QStringLiteral("%1:%2: column 'log_time' goes back in time "
                                                  "(%3 s after %4 s); expected rows in the "
                                                  "order the minibatches ended")
                                       .arg(fileName)
                                       .arg(row.line)
                                       .arg(row.atS)
                                       .arg(out.back().endS),
                                   ErrorKind::BadInput);
        }
        out.append({row.atS, row.value});
    }
    return out;
}

Expected<QVector<PowerSample>> parseTegrastats(const QByteArray &data, const QString &fileName)
{
    using Result = Expected<QVector<PowerSample>>;
    const Expected<QVector<TimedValue>> rows =
        readTimedValues(data, fileName, QStringLiteral("power cur"), kMaxPowerMw,
                        QStringLiteral("a module power in milliwatts (above 0, at most 500000)"));
    if (!rows)
        return passOn<Result>(rows);
    QVector<PowerSample> out;
    out.reserve(rows->size());
    for (const TimedValue &row : *rows)
        out.append({row.atS, row.value / 1000.0});
    return out;
}

}  // namespace ptwb::RawRunFiles
