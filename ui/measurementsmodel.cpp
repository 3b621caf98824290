#include "measurementsmodel.h"

#include "plaintext.h"

namespace ptwb::ui {

void MeasurementsModel::setMeasurements(const QVector<Measurement> &rows)
{
    beginResetModel();
    m_rows = rows;
    endResetModel();
}

int MeasurementsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int MeasurementsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MeasurementsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Measurement &m = m_rows[index.row()];
    if (role == Qt::TextAlignmentRole) {
        return index.column() <= Short ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                       : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == Qt::ToolTipRole && index.column() == Source)
        return plainTip(
            QStringLiteral("Measured %1%2")
                .arg(m.measuredAt,
                     m.bootId.isEmpty() ? QString() : QStringLiteral(", boot %1").arg(m.bootId)));
    // The sort role gives numbers, so sorting is numeric rather than by text.
    const bool sort = role == Qt::UserRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    switch (index.column()) {
    case Mode:
        // Zero-padded fields sort as text in the order of (cores, CPU, GPU, memory).
        return sort ? QVariant(QString::asprintf("%03d %010lld %013lld %013lld", m.mode.cores,
                                                 m.mode.cpuKHz, m.mode.gpuHz, m.mode.emcHz))
                    : QVariant(m.mode.toCanonical());
    case Short:
        return m.mode.toShort();
    case Cores:
        return m.mode.cores;
    case CpuGHz:
        return sort ? QVariant(m.mode.cpuKHz)
                    : QVariant(QString::number(m.mode.cpuKHz / 1e6, 'f', 3));
    case GpuGHz:
        return sort ? QVariant(m.mode.gpuHz)
                    : QVariant(QString::number(m.mode.gpuHz / 1e9, 'f', 3));
    case EmcGHz:
        return sort ? QVariant(m.mode.emcHz)
                    : QVariant(QString::number(m.mode.emcHz / 1e9, 'f', 3));
    case Batch: {
        const int batch = m.inferenceBatch > 0 ? m.inferenceBatch : m.trainingBatch;
        return sort || batch > 0 ? QVariant(batch) : QVariant();
    }
    case PeakW:
        if (!m.peakPowerW)
            return sort ? QVariant(0.0) : QVariant();
        return sort ? QVariant(*m.peakPowerW) : QVariant(QString::number(*m.peakPowerW, 'f', 2));
    case TimeMs:
        return sort ? QVariant(m.timeMs) : QVariant(QString::number(m.timeMs, 'f', 1));
    case PowerW:
        return sort ? QVariant(m.powerW) : QVariant(QString::number(m.powerW, 'f', 2));
    case EnergyJ:
        return sort ? QVariant(m.energyJ()) : QVariant(QString::number(m.energyJ(), 'f', 2));
    case Source:
        return m.source;
    default:
        return {};
    }
}

QVariant MeasurementsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Mode:
            return tr("cores/CPU kHz/GPU Hz/memory Hz");
        case Short:
            return tr("cores c / CPU GHz C / GPU GHz G / memory GHz M");
        case Batch:
            return tr("Minibatch size: requests per inference minibatch, or samples per "
                      "training minibatch");
        case PeakW:
            return tr("The largest power sample of the same window: a power cap binds on the "
                      "peak");
        case TimeMs:
            return tr("Median minibatch time over the clean window");
        case PowerW:
            return tr("Median module power over the same window");
        case EnergyJ:
            return tr("Energy per minibatch = power x time");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Mode:
        return tr("Mode");
    case Short:
        return tr("Short");
    case Cores:
        return tr("Cores");
    case CpuGHz:
        return tr("CPU GHz");
    case GpuGHz:
        return tr("GPU GHz");
    case EmcGHz:
        return tr("Memory GHz");
    case Batch:
        return tr("Batch");
    case TimeMs:
        return tr("Time (ms)");
    case PowerW:
        return tr("Power (W)");
    case PeakW:
        return tr("Peak (W)");
    case EnergyJ:
        return tr("Energy (J)");
    case Source:
        return tr("Source");
    default:
        return {};
    }
}

}  // namespace ptwb::ui
