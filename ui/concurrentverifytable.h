#pragma once

#include "concurrentverify.h"

#include <QTableWidget>

namespace ptwb::ui {

// The verification run's numbers beside each other, like `ptwb verify-concurrent`'s final table:
// measured (live), the formulas with the run's own measured tT and tI (at the end), the
// prediction and the budget. All plain text.
class ConcurrentVerifyTable : public QTableWidget
{
    Q_OBJECT

public:
    enum Row {
        LatencyP50,
        LatencyP95,
        LatencyP99,
        LatencyMax,
        Training,
        Inference,
        PowerMedian,
        PowerMax,
        TrainTime,
        InferTime,
        RowCount
    };
    enum Column { Measured, Formula, Predicted, BudgetColumn, ColumnCount };

    explicit ConcurrentVerifyTable(QWidget *parent = nullptr);

    // Empties the measured and formula columns and shows the prediction and the budgets.
    void start(const workflows::VerificationRequest &request);
    void showProgress(const ConcurrentMeasurement &measured);
    void showOutcome(const workflows::VerificationOutcome &outcome);

    QString text(Row row, Column column) const;

private:
    void set(int row, int column, const QString &text);

    double m_arrivalRate = 0;
    int m_batch = 1;
};

}  // namespace ptwb::ui
