#include "sweepresultsmodel.h"

#include "store/workloadoutput.h"

#include <QBrush>
#include <QColor>

namespace ptwb::ui {

SweepResultsModel::SweepResultsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SweepResultsModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

void SweepResultsModel::setRecord(const SweepRecord &record)
{
    beginResetModel();
    m_rows.clear();
    for (const SweepItem &item : record.items) {
        if (item.state != SweepItem::State::Pending)
            m_rows.append({item, Measurement(), false});
    }
    endResetModel();
}

void SweepResultsModel::append(const SweepItem &item, const Measurement &measurement)
{
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append({item, measurement, item.state == SweepItem::State::Done});
    endInsertRows();
}

QString SweepResultsModel::failureDetails(int row) const
{
    if (row < 0 || row >= m_rows.size() || m_rows[row].item.state != SweepItem::State::Failed)
        return {};
    const SweepItem &item = m_rows[row].item;
    QStringList lines;
    lines << QStringLiteral("%1 failed: %2")
                 .arg(item.mode.toShort(), WorkloadOutput::sanitisedText(item.reason));
    if (item.output.isEmpty()) {
        lines << QStringLiteral("(the workload printed nothing before it failed)");
    } else {
        lines << QStringLiteral("Its last %1 output lines:").arg(item.output.size());
        for (const WorkloadOutputLine &line : item.output) {
            const QString ms = line.ms ? QStringLiteral("%1 ms").arg(*line.ms, 6, 'f', 1)
                                       : QString(9, QLatin1Char(' '));
            lines << QStringLiteral("%1 %2 \u2502 %3")
                         .arg(line.stream == QLatin1String("err") ? QStringLiteral("err")
                                                                  : QStringLiteral("out"),
                              ms, WorkloadOutput::sanitisedText(line.text));
        }
    }
    return lines.join(QLatin1Char('\n'));
}

int SweepResultsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SweepResultsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SweepResultsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows[index.row()];
    const bool done = row.item.state == SweepItem::State::Done;
    const bool numbers = done && row.measuredNow;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case ModeColumn:
            return row.item.repeat > 0 ? QStringLiteral("%1 (repeat %2)")
                                             .arg(row.item.mode.toShort())
                                             .arg(row.item.repeat + 1)
                                       : row.item.mode.toShort();
        case BatchColumn:
            return row.item.batchSize > 0 ? QString::number(row.item.batchSize) : QString();
        case TimeColumn:
            return numbers ? QString::number(row.measurement.timeMs, 'f', 1) : QString();
        case PeakColumn:
            return numbers && row.measurement.peakPowerW
                ? QString::number(*row.measurement.peakPowerW, 'f', 2)
                : QString();
        case PowerColumn:
            return numbers ? QString::number(row.measurement.powerW, 'f', 2) : QString();
        case EnergyColumn:
            return numbers ? QString::number(row.measurement.energyJ(), 'f', 2) : QString();
        case StatusColumn:
            if (done)
                return numbers ? QStringLiteral("done") : QStringLiteral("done (earlier run)");
            return QStringLiteral("failed: %1").arg(row.item.reason);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == ModeColumn)
            return row.item.mode.toCanonical();
        if (index.column() == StatusColumn && !done) {
            // Device text, escaped: a tooltip would read markup in it as rich text.
            return QStringLiteral("<pre>%1</pre>").arg(failureDetails(index.row()).toHtmlEscaped());
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() >= BatchColumn &&
        index.column() <= EnergyColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == StatusColumn && !done)
        return QBrush(QColor(0xc6, 0x28, 0x28));
    return {};
}

QVariant SweepResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case ModeColumn:
            return QStringLiteral("Mode");
        case BatchColumn:
            return QStringLiteral("Batch");
        case TimeColumn:
            return QStringLiteral("Time / minibatch (ms)");
        case PeakColumn:
            return QStringLiteral("Peak (W)");
        case PowerColumn:
            return QStringLiteral("Power (W)");
        case EnergyColumn:
            return QStringLiteral("Energy / minibatch (J)");
        case StatusColumn:
            return QStringLiteral("Status");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ModeColumn:
            return QStringLiteral("Cores, CPU, GPU and memory clocks (GHz); hover a mode for "
                                  "its exact frequencies");
        case BatchColumn:
            return QStringLiteral("The minibatch size profiled (empty: the workload's own)");
        case TimeColumn:
            return QStringLiteral("Median time of one minibatch in the clean window");
        case PeakColumn:
            return QStringLiteral("The largest power sample of the same window: a power cap "
                                  "binds on the peak");
        case PowerColumn:
            return QStringLiteral("Median total power of the board while training");
        case EnergyColumn:
            return QStringLiteral("Time x power: the energy of one minibatch");
        case StatusColumn:
            return QStringLiteral("Measured, or failed with the reason; select a failed mode for "
                                  "the last lines its workload printed");
        default:
            return {};
        }
    }
    return {};
}

}  // namespace ptwb::ui
