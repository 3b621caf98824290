#include "store/convergencecsv.h"

#include "util/csvfield.h"
#include "util/numbertext.h"

#include <QHash>
#include <QList>

#include <algorithm>
#include <array>
#include <cmath>

namespace ptwb::ConvergenceCsv {

namespace {

using CsvField::parseWhole;
using CsvField::unquote;

enum Column { Batch, Samples, Epochs, Accuracy, ColumnCount };

const std::array<const char *, ColumnCount> kColumnNames = {"batch_size", "samples_to_target",
                                                            "epochs_to_target", "target_accuracy"};

const char kLayout[] = "batch_size and samples_to_target or epochs_to_target, optionally "
                       "target_accuracy";

class RowParser
{
public:
    RowParser(const QString &fileName, const std::array<int, ColumnCount> &position)
        : m_fileName(fileName)
        , m_position(position)
    {
    }

    QString error(int line, int column, const QString &what) const
    {
        return QStringLiteral("%1:%2: column '%3': %4")
            .arg(m_fileName)
            .arg(line)
            .arg(QLatin1String(kColumnNames[column]), what);
    }

    QString text(const QList<QByteArray> &fields, int column) const
    {
        return QString::fromUtf8(unquote(fields[m_position[column]]));
    }

    QString batch(const QList<QByteArray> &fields, int line, int *out) const
    {
        const QByteArray text = unquote(fields[m_position[Batch]]);
        const QString expected = QStringLiteral("expected a training minibatch size (1 to %1)")
                                     .arg(ConvergenceRelation::kMaxBatch);
        qint64 value = 0;
        if (text.isEmpty())
            return error(line, Batch, QStringLiteral("empty; %1").arg(expected));
        if (!parseWhole(text, &value)) {
            return error(line, Batch,
                         QStringLiteral("'%1' is not a whole number; %2")
                             .arg(QString::fromUtf8(text), expected));
        }
        if (value < 1 || value > ConvergenceRelation::kMaxBatch) {
            return error(
                line, Batch,
                QStringLiteral("'%1' is out of range; %2").arg(QString::fromUtf8(text), expected));
        }
        *out = int(value);
        return {};
    }

    QString positive(const QList<QByteArray> &fields, int line, int column, const QString &what,
                     double *out) const
    {
        const QString value = text(fields, column);
        bool ok = false;
        const double number = value.toDouble(&ok);
        if (!ok || !std::isfinite(number))
            return error(line, column,
                         QStringLiteral("'%1' is not a number; expected a %2").arg(value, what));
        if (number <= 0)
            return error(line, column,
                         QStringLiteral("'%1' must be a positive %2").arg(value, what));
        // No training takes a trillion samples (or epochs): 1e300 is not a count.
        if (number > kMaxCount)
            return error(line, column,
                         QStringLiteral("'%1' is out of range; expected a %2 of at most %3")
                             .arg(value, what)
                             .arg(kMaxCount, 0, 'g'));
        *out = number;
        return {};
    }

    QString accuracy(const QList<QByteArray> &fields, int line, double *out) const
    {
        const QString value = text(fields, Accuracy);
        const QString expected = QStringLiteral("expected an accuracy between 0 and 1 (e.g. 0.93)");
        bool ok = false;
        const double number = value.toDouble(&ok);
        if (!ok || !std::isfinite(number))
            return error(line, Accuracy,
                         QStringLiteral("'%1' is not a number; %2").arg(value, expected));
        if (number <= 0 || number > 1)
            return error(line, Accuracy,
                         QStringLiteral("'%1' is out of range; %2").arg(value, expected));
        *out = number;
        return {};
    }

private:
    const QString &m_fileName;
    const std::array<int, ColumnCount> &m_position;
    static constexpr double kMaxCount = 1e12;
};

}  // namespace

Expected<Parsed> parse(const QByteArray &input, const QString &fileName,
                       std::optional<double> samplesPerEpoch)
{
    const auto bad = [](const QString &message) {
        return Expected<Parsed>::failure(message, ErrorKind::BadInput);
    };
    const CsvField::Lines file = CsvField::Lines::of(input);
    const QList<QByteArray> &lines = file.lines;
    const bool endsWithNewline = file.endsWithNewline;
    const int lastContent = file.lastContent;
    if (lastContent < 0) {
        return bad(QStringLiteral("%1:1: the file is empty; expected the header line "
                                  "'batch_size,samples_to_target'")
                       .arg(fileName));
    }

    const int headerLine = file.header;
    const int headerNumber = headerLine + 1;
    std::array<int, ColumnCount> position;
    position.fill(-1);
    const QList<QByteArray> header = lines[headerLine].split(',');
    for (int i = 0; i < header.size(); ++i) {
        const QByteArray name = unquote(header[i]);
        const auto found = std::find(kColumnNames.begin(), kColumnNames.end(), name);
        if (found == kColumnNames.end()) {
            return bad(QStringLiteral("%1:%2: column '%3': not a column of a samples-to-accuracy "
                                      "file; expected %4")
                           .arg(fileName)
                           .arg(headerNumber)
                           .arg(QString::fromUtf8(name), QLatin1String(kLayout)));
        }
        int &slot = position[found - kColumnNames.begin()];
        if (slot >= 0) {
            return bad(QStringLiteral("%1:%2: column '%3': appears twice in the header")
                           .arg(fileName)
                           .arg(headerNumber)
                           .arg(QString::fromUtf8(name)));
        }
        slot = i;
    }
    if (position[Batch] < 0) {
        return bad(
            QStringLiteral("%1:%2: column 'batch_size': missing from the header; expected %3")
                .arg(fileName)
                .arg(headerNumber)
                .arg(QLatin1String(kLayout)));
    }
    if (position[Samples] < 0 && position[Epochs] < 0) {
        return bad(QStringLiteral("%1:%2: column 'samples_to_target': missing from the header; "
                                  "expected samples_to_target or epochs_to_target")
                       .arg(fileName)
                       .arg(headerNumber));
    }
    const bool fromEpochs = position[Samples] < 0;
    if (fromEpochs && !samplesPerEpoch) {
        return Expected<Parsed>::badInput(
            InputField::DatasetSamples,
            QStringLiteral("%1:%2: column 'epochs_to_target': epochs without the dataset's size; "
                           "expected the training samples per epoch to turn them into samples")
                .arg(fileName)
                .arg(headerNumber));
    }
    if (fromEpochs && (!std::isfinite(*samplesPerEpoch) || *samplesPerEpoch <= 0)) {
        return Expected<Parsed>::badInput(
            InputField::DatasetSamples,
            QStringLiteral("%1 samples per epoch; expected a positive number")
                .arg(*samplesPerEpoch));
    }
    const int fieldCount = int(header.size());
    QStringList headerNames;
    for (const QByteArray &name : header)
        headerNames.append(QString::fromUtf8(unquote(name)));
    const QString headerColumns = headerNames.join(QLatin1Char(','));
    if (lastContent == headerLine) {
        return bad(QStringLiteral("%1:%2: no rows after the header; expected at least %3 rows of "
                                  "%4")
                       .arg(fileName)
                       .arg(headerNumber + 1)
                       .arg(ConvergenceRelation::kMinPoints)
                       .arg(headerColumns));
    }

    Parsed parsed;
    parsed.fromEpochs = fromEpochs;
    QHash<int, int> lineOfBatch;
    int accuracyLine = 0;
    QString accuracyText;
    const RowParser row(fileName, position);
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
        ConvergencePoint point;
        if (QString problem = row.batch(fields, line, &point.batchSize); !problem.isEmpty())
            return bad(problem);
        if (const auto seen = lineOfBatch.constFind(point.batchSize); seen != lineOfBatch.cend()) {
            return bad(row.error(line, Batch,
                                 QStringLiteral("%1 is on line %2 too; expected each batch size "
                                                "once")
                                     .arg(point.batchSize)
                                     .arg(*seen)));
        }
        lineOfBatch.insert(point.batchSize, line);
        double epochs = 0;
        if (position[Epochs] >= 0) {
            if (QString problem =
                    row.positive(fields, line, Epochs, QStringLiteral("number of epochs"), &epochs);
                !problem.isEmpty())
                return bad(problem);
        }
        if (fromEpochs) {
            point.samples = epochs * *samplesPerEpoch;
        } else if (QString problem = row.positive(
                       fields, line, Samples, QStringLiteral("number of samples"), &point.samples);
                   !problem.isEmpty()) {
            return bad(problem);
        }
        if (position[Accuracy] >= 0) {
            double accuracy = 0;
            if (QString problem = row.accuracy(fields, line, &accuracy); !problem.isEmpty())
                return bad(problem);
            if (parsed.targetAccuracy && *parsed.targetAccuracy != accuracy) {
                return bad(row.error(line, Accuracy,
                                     QStringLiteral("'%1' differs from line %2's '%3'; expected "
                                                    "one target accuracy for the whole file")
                                         .arg(row.text(fields, Accuracy))
                                         .arg(accuracyLine)
                                         .arg(accuracyText)));
            }
            if (!parsed.targetAccuracy) {
                parsed.targetAccuracy = accuracy;
                accuracyLine = line;
                accuracyText = row.text(fields, Accuracy);
            }
        }
        parsed.points.append(point);
    }
    if (parsed.points.size() < ConvergenceRelation::kMinPoints) {
        return bad(QStringLiteral("%1:%2: only one batch size; expected at least %3 rows to "
                                  "relate batch size and samples")
                       .arg(fileName)
                       .arg(lineOfBatch.cbegin().value())
                       .arg(ConvergenceRelation::kMinPoints));
    }
    std::sort(parsed.points.begin(), parsed.points.end(),
              [](const ConvergencePoint &a, const ConvergencePoint &b) {
                  return a.batchSize < b.batchSize;
              });
    return parsed;
}

QByteArray write(const ConvergenceRelation &relation)
{
    QByteArray out = "batch_size,samples_to_target";
    if (relation.targetAccuracy)
        out.append(",target_accuracy");
    out.append('\n');
    for (const ConvergencePoint &point : relation.points) {
        out.append(QByteArray::number(point.batchSize)).append(',');
        appendShortest(out, point.samples);
        if (relation.targetAccuracy) {
            out.append(',');
            appendShortest(out, *relation.targetAccuracy);
        }
        out.append('\n');
    }
    return out;
}

}  // namespace ptwb::ConvergenceCsv
