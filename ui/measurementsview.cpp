#include "measurementsview.h"

#include "measurementsmodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace ptwb::ui {

MeasurementsView::MeasurementsView(QWidget *parent)
    : QWidget(parent)
    , m_workloadBox(new QComboBox(this))
    , m_statistics(new QLabel(this))
    , m_stack(new QStackedWidget(this))
    , m_emptyState(new QLabel(this))
    , m_table(new QTableView(this))
    , m_model(new MeasurementsModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_workloadBox->setMinimumContentsLength(32);
    m_workloadBox->setToolTip(tr("Workloads in this database, with the device they ran on"));
    m_statistics->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_emptyState->setAlignment(Qt::AlignCenter);
    m_emptyState->setWordWrap(true);
    m_emptyState->setText(
        tr("<h3>No measurements yet</h3><p>Import a CSV in the public PowerTrain layout with "
           "<b>File &gt; Import CSV…</b> (Ctrl+I):<br><tt>cores,cpu,gpu,mem,observed_time,"
           "observed_power</tt></p>"));
    m_stack->addWidget(m_emptyState);
    m_stack->addWidget(m_table);

    auto *top = new QHBoxLayout;
    auto *label = new QLabel(tr("&Workload:"), this);
    label->setBuddy(m_workloadBox);
    top->addWidget(label);
    top->addWidget(m_workloadBox);
    top->addSpacing(16);
    top->addWidget(m_statistics, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);

    connect(m_workloadBox, &QComboBox::currentIndexChanged, this, [this] {
        const auto [device, workload] = currentSelection();
        Q_EMIT selectionChanged(device, workload);
    });
}

QPair<QString, QString> MeasurementsView::currentSelection() const
{
    const QStringList pair = m_workloadBox->currentData().toStringList();
    if (pair.size() != 2)
        return {};
    return {pair[0], pair[1]};
}

void MeasurementsView::setSummaries(const QVector<WorkloadSummary> &summaries)
{
    const QPair<QString, QString> previous = currentSelection();
    {
        const QSignalBlocker blocker(m_workloadBox);
        m_workloadBox->clear();
        for (const WorkloadSummary &s : summaries) {
            m_workloadBox->addItem(
                tr("%1 — %2 (%3 modes)").arg(s.workload, s.device).arg(s.distinctModes),
                QStringList {s.device, s.workload});
        }
        const int index = m_workloadBox->findData(QStringList {previous.first, previous.second});
        m_workloadBox->setCurrentIndex(index >= 0 ? index : 0);
    }
    m_workloadBox->setEnabled(!summaries.isEmpty());
    if (summaries.isEmpty()) {
        m_model->setMeasurements({});
        m_statistics->clear();
        m_stack->setCurrentWidget(m_emptyState);
    }
    const auto [device, workload] = currentSelection();
    if (!workload.isEmpty())
        Q_EMIT selectionChanged(device, workload);
}

void MeasurementsView::setMeasurements(const QString &device, const QString &workload,
                                       const QVector<Measurement> &rows)
{
    if (currentSelection() != qMakePair(device, workload))
        return;
    m_model->setMeasurements(rows);
    QSet<int> trainingBatches;
    for (const Measurement &m : rows)
        trainingBatches.insert(m.trainingBatch);
    m_table->setColumnHidden(MeasurementsModel::Batch,
                             trainingBatches.size() <= 1 &&
                                 std::none_of(rows.cbegin(), rows.cend(), [](const Measurement &m) {
                                     return m.inferenceBatch > 0;
                                 }));
    m_table->setColumnHidden(MeasurementsModel::PeakW,
                             std::none_of(rows.cbegin(), rows.cend(), [](const Measurement &m) {
                                 return m.peakPowerW.has_value();
                             }));
    m_stack->setCurrentWidget(rows.isEmpty() ? static_cast<QWidget *>(m_emptyState) : m_table);
    if (rows.isEmpty()) {
        m_statistics->clear();
        return;
    }
    const auto [minTime, maxTime] =
        std::minmax_element(rows.cbegin(), rows.cend(),
                            [](const auto &a, const auto &b) { return a.timeMs < b.timeMs; });
    const auto [minPower, maxPower] =
        std::minmax_element(rows.cbegin(), rows.cend(),
                            [](const auto &a, const auto &b) { return a.powerW < b.powerW; });
    m_statistics->setText(tr("%1 measurements · time %2–%3 ms · power %4–%5 W")
                              .arg(rows.size())
                              .arg(minTime->timeMs, 0, 'f', 1)
                              .arg(maxTime->timeMs, 0, 'f', 1)
                              .arg(minPower->powerW, 0, 'f', 2)
                              .arg(maxPower->powerW, 0, 'f', 2));
}

}  // namespace ptwb::ui
