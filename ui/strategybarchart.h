#pragma once

#include <QChartView>
#include <QColor>
#include <QVector>

class QBarCategoryAxis;
class QValueAxis;

namespace ptwb::ui {

// Grouped bars of one or more metrics per strategy (Compare view): a bar set per metric, a
// category per strategy, the value axis always including 0 (penalties can be negative).
class StrategyBarChart : public QChartView
{
    Q_OBJECT

public:
    struct Metric
    {
        QString name;
        QColor color;
        QVector<double> values;  // one per category
    };

    StrategyBarChart(const QString &title, const QString &axisTitle, QWidget *parent = nullptr);

    void setData(const QStringList &strategies, const QVector<Metric> &metrics);
    // Values above the bars (default on); hovering a bar always shows its value.
    void setValueLabelsVisible(bool visible);
    QStringList categories() const { return m_categories; }
    // Value of a bar (tests): metric index, strategy index.
    double value(int metric, int strategy) const;

private:
    void fitCategoryLabels();

    QBarCategoryAxis *m_axisX;
    QValueAxis *m_axisY;
    QStringList m_categories;
    QVector<Metric> m_metrics;
    bool m_valueLabels = true;
};

}  // namespace ptwb::ui
