#pragma once

#include "store/measurement.h"

#include <QAbstractTableModel>
#include <QVector>

namespace ptwb::ui {

// Measurements of one workload as a table: mode, clocks, time, power, energy, provenance.
class MeasurementsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Mode,
        Short,
        Cores,
        CpuGHz,
        GpuGHz,
        EmcGHz,
        // The inference minibatch size, or the training one (the view hides it for training
        // rows all at one batch)
        Batch,
        TimeMs,
        PowerW,
        PeakW,  // hidden when no row has a peak
        EnergyJ,
        Source,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setMeasurements(const QVector<Measurement> &rows);
    const QVector<Measurement> &measurements() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVector<Measurement> m_rows;
};

}  // namespace ptwb::ui
