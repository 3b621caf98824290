#pragma once

#include <QChartView>

class QAbstractAxis;
class QLineSeries;
class QScatterSeries;

namespace ptwb::ui {

// Predicted against observed values of one target on a workload's measured modes: predicted on
// x, observed on y, and the y = x diagonal where a perfect model's points would lie.
class FitPlot : public QChartView
{
    Q_OBJECT

public:
    // `quantity` names the target ("Time"), `unit` its unit ("ms"). `logScale` for values that
    // span decades (minibatch times do: 30 ms to 3 s), so the fast modes are not a smudge.
    FitPlot(const QString &quantity, const QString &unit, bool logScale, QWidget *parent = nullptr);

    void setData(const QVector<double> &predicted, const QVector<double> &observed, double mape);
    void clear(const QString &message = {});
    int pointCount() const;

private:
    void setRange(double low, double high);

    QString m_quantity;
    QString m_unit;
    QScatterSeries *m_points;
    QLineSeries *m_diagonal;
    bool m_log;
    QAbstractAxis *m_axisX;
    QAbstractAxis *m_axisY;
};

}  // namespace ptwb::ui
