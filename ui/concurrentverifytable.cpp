#include "concurrentverifytable.h"

#include <QHeaderView>

#include <cmath>

namespace ptwb::ui {

namespace {

QString num(double v, int decimals)
{
    return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("–");
}

QString num(const std::optional<double> &v, int decimals)
{
    return v ? num(*v, decimals) : QStringLiteral("?");
}

}  // namespace

ConcurrentVerifyTable::ConcurrentVerifyTable(QWidget *parent)
    : QTableWidget(RowCount, ColumnCount, parent)
{
    setObjectName(QStringLiteral("concurrentVerifyTable"));
    setHorizontalHeaderLabels({tr("Measured"), tr("Formula"), tr("Predicted"), tr("Budget")});
    setVerticalHeaderLabels({tr("Latency p50 (ms)"), tr("Latency p95 (ms)"), tr("Latency p99 (ms)"),
                             tr("Latency max (ms)"), tr("Training (minibatches/s)"),
                             tr("Inference (batches/s)"), tr("Power median (W)"),
                             tr("Power max (W)"), tr("Training minibatch tT (ms)"),
                             tr("Inference minibatch tI (ms)")});
    horizontalHeaderItem(Formula)->setToolTip(
        tr("The formulas with this run's measured tT and tI: latency b/λ + tI, "
           "n = floor((b/λ − tI)/tT) training minibatches per cycle, inference λ/b batches/s"));
    horizontalHeaderItem(Predicted)->setToolTip(
        tr("The same formulas with the store's measured or predicted tT, tI and power"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::ContiguousSelection);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setFocusPolicy(Qt::ClickFocus);
    for (int r = 0; r < RowCount; ++r)
        for (int c = 0; c < ColumnCount; ++c)
            set(r, c, QString());
}

void ConcurrentVerifyTable::set(int row, int column, const QString &text)
{
    QTableWidgetItem *cell = item(row, column);
    if (!cell) {
        cell = new QTableWidgetItem;
        cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        setItem(row, column, cell);
    }
    cell->setText(text);
}

QString ConcurrentVerifyTable::text(Row row, Column column) const
{
    const QTableWidgetItem *cell = item(row, column);
    return cell ? cell->text() : QString();
}

void ConcurrentVerifyTable::start(const workflows::VerificationRequest &request)
{
    m_arrivalRate = request.arrivalRate;
    m_batch = request.inferBatch;
    for (int r = 0; r < RowCount; ++r)
        for (int c = 0; c < ColumnCount; ++c)
            set(r, c, QString());
    const ConcurrentProblem &problem = request.problem;
    if (problem.latencyBudgetS > 0)
        set(LatencyP99, BudgetColumn, num(problem.latencyBudgetS * 1000, 0));
    if (problem.powerBudgetW > 0)
        set(PowerMedian, BudgetColumn, num(problem.powerBudgetW, 1));
    set(Inference, Predicted, num(request.arrivalRate / request.inferBatch, 2));
    if (request.predicted) {
        ConcurrentProblem withRate = problem;
        withRate.arrivalRate = request.arrivalRate;
        PairCost cost = *request.predicted;
        cost.batch = request.inferBatch;
        const ConcurrentOutcome p = assess(withRate, cost);
        set(LatencyP99, Predicted, num(p.latencyS * 1000, 1));
        set(Training, Predicted,
            tr("%1 (n=%2)").arg(num(p.throughput, 2)).arg(p.minibatchesPerCycle));
        set(PowerMedian, Predicted, num(p.powerW, 1));
        set(TrainTime, Predicted, num(cost.trainTimeMs, 1));
        set(InferTime, Predicted, num(cost.inferTimeMs, 1));
    }
}

void ConcurrentVerifyTable::showProgress(const ConcurrentMeasurement &m)
{
    if (m.latencyMs) {
        set(LatencyP50, Measured, num(m.latencyMs->p50, 1));
        set(LatencyP95, Measured, num(m.latencyMs->p95, 1));
        set(LatencyP99, Measured, num(m.latencyMs->p99, 1));
        set(LatencyMax, Measured, num(m.latencyMs->max, 1));
    }
    set(Training, Measured, num(m.trainPerSecond, 2));
    set(Inference, Measured, num(m.inferPerSecond, 2));
    set(PowerMedian, Measured, num(m.powerMedianW, 1));
    if (m.final) {
        set(PowerMax, Measured, num(m.powerMaxW, 1));
        set(TrainTime, Measured, num(m.trainMsMedian, 1));
        set(InferTime, Measured, num(m.inferMsMedian, 1));
    }
}

void ConcurrentVerifyTable::showOutcome(const workflows::VerificationOutcome &outcome)
{
    showProgress(outcome.measured);
    const ConcurrentOutcome &f = outcome.fromMeasuredTimes;
    set(LatencyP99, Formula, num(f.latencyS * 1000, 1));
    set(Training, Formula, tr("%1 (n=%2)").arg(num(f.throughput, 2)).arg(f.minibatchesPerCycle));
    set(Inference, Formula, num(m_arrivalRate / m_batch, 2));
    if (outcome.predicted) {
        const ConcurrentOutcome &p = *outcome.predicted;
        set(LatencyP99, Predicted, num(p.latencyS * 1000, 1));
        set(Training, Predicted,
            tr("%1 (n=%2)").arg(num(p.throughput, 2)).arg(p.minibatchesPerCycle));
        set(PowerMedian, Predicted, num(p.powerW, 1));
    }
}

}  // namespace ptwb::ui
