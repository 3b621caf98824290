#pragma once

#include <QChartView>
#include <QHash>
#include <QPointF>
#include <QVector>

class QAreaSeries;
class QLineSeries;
class QValueAxis;

namespace ptwb {
struct AccuracyRow;
}

namespace ptwb::ui {

// One quantity (time or power) of the accuracy study: MAPE against the number of profiled
// modes, one line per method at the median of the repeats with its quartile band (q1 to q3,
// translucent). PT is green, NN purple; the published configuration is dashed. Hovering a point
// shows its numbers.
class AccuracyChart : public QChartView
{
    Q_OBJECT

public:
    enum class Quantity { Time, Power };

    AccuracyChart(Quantity quantity, QWidget *parent = nullptr);

    void clear();
    void addRow(const AccuracyRow &row);

    // What is drawn (tests): the methods with a line, and a line's median points.
    QStringList methods() const { return m_lines.keys(); }
    QVector<QPointF> medians(const QString &method) const;

    // "PT", "NN (published)": how a row's method reads in the window.
    static QString methodLabel(const QString &method);

private:
    struct Line
    {
        QLineSeries *median = nullptr;
        QLineSeries *q1 = nullptr;
        QLineSeries *q3 = nullptr;
        QAreaSeries *band = nullptr;
    };
    Line &lineOf(const QString &method);
    void updateRanges();

    Quantity m_quantity;
    QValueAxis *m_axisX;
    QValueAxis *m_axisY;
    QHash<QString, Line> m_lines;
    double m_maxSamples = 0;
    double m_maxMape = 0;
};

}  // namespace ptwb::ui
