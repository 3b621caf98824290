#pragma once

#include "store/measurement.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace ptwb::ui {

class MeasurementsModel;

// Pick a (device, workload) the store holds and see its measurements as a sortable table.
class MeasurementsView : public QWidget
{
    Q_OBJECT

public:
    explicit MeasurementsView(QWidget *parent = nullptr);

    // The selection as (device, workload); empty strings when there is none.
    QPair<QString, QString> currentSelection() const;
    QTableView *table() const { return m_table; }
    MeasurementsModel *model() const { return m_model; }

public Q_SLOTS:
    void setSummaries(const QVector<ptwb::WorkloadSummary> &summaries);
    void setMeasurements(const QString &device, const QString &workload,
                         const QVector<ptwb::Measurement> &rows);

Q_SIGNALS:
    void selectionChanged(const QString &device, const QString &workload);

private:
    QComboBox *m_workloadBox;
    QLabel *m_statistics;
    QStackedWidget *m_stack;
    QLabel *m_emptyState;
    QTableView *m_table;
    MeasurementsModel *m_model;
    QSortFilterProxyModel *m_proxy;
};

}  // namespace ptwb::ui
