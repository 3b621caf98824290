#pragma once

#include "util/quartiles.h"

#include <QChartView>
#include <QColor>
#include <QVector>

class QBarCategoryAxis;
class QValueAxis;

namespace ptwb::ui {

// A box plot per strategy (Compare view): the quartiles as the box, Tukey's whiskers, a category
// per strategy and the value axis always including 0. Hovering a box shows its five numbers.
class StrategyBoxChart : public QChartView
{
    Q_OBJECT

public:
    StrategyBoxChart(const QString &title, const QString &axisTitle, const QColor &color,
                     QWidget *parent = nullptr);

    // One distribution per strategy; `unit` follows the numbers in the tooltips ("%", " W").
    void setData(const QStringList &strategies, const QVector<Distribution> &boxes,
                 const QString &unit);
    QStringList categories() const { return m_categories; }
    // The five numbers of a strategy's box (tests); all NaN out of range.
    Distribution box(int strategy) const;
    // The tooltip its box shows on hover.
    QString boxText(int strategy) const;

private:
    void fitLabels();

    QBarCategoryAxis *m_axisX;
    QValueAxis *m_axisY;
    QColor m_color;
    QString m_unit;
    QStringList m_categories;
    QVector<Distribution> m_boxes;
};

}  // namespace ptwb::ui
