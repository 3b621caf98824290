#pragma once

#include "store/measurement.h"
#include "store/sweepstore.h"

#include <QAbstractTableModel>
#include <QVector>

namespace ptwb::ui {

// The modes a sweep has finished, in the order they finished: measured ones with their batch
// size, time, median and peak power and energy per minibatch, failed ones with the device's
// reason.
class SweepResultsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        ModeColumn,
        BatchColumn,
        TimeColumn,
        PowerColumn,
        PeakColumn,
        EnergyColumn,
        StatusColumn,
        ColumnCount
    };

    explicit SweepResultsModel(QObject *parent = nullptr);

    void clear();
    // The finished items of a stored sweep (measurements are not in the record: time, power and
    // energy of earlier runs stay empty).
    void setRecord(const SweepRecord &record);
    void append(const SweepItem &item, const Measurement &measurement);
    // A failed row's reason and the workload's last output lines, as plain text (device text,
    // control characters stripped); empty for a measured row.
    QString failureDetails(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        SweepItem item;
        Measurement measurement;
        bool measuredNow = false;  // in this window: the numbers are known
    };
    QVector<Row> m_rows;
};

}  // namespace ptwb::ui
