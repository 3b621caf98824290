#include "strategyboxchart.h"

#include "chartstyle.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QCursor>
#include <QLocale>
#include <QToolTip>
#include <QValueAxis>

#include <cmath>

namespace ptwb::ui {

StrategyBoxChart::StrategyBoxChart(const QString &title, const QString &axisTitle,
                                   const QColor &color, QWidget *parent)
    : QChartView(parent)
    , m_axisX(new QBarCategoryAxis(this))
    , m_axisY(new QValueAxis(this))
    , m_color(color)
{
    auto *chart = new QChart;
    styleChart(chart, this);
    chart->setTitle(title);
    m_axisY->setTitleText(axisTitle);
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    chart->legend()->setVisible(false);
    setChart(chart);
    // The plot area settles after a resize, in the chart's own layout pass.
    connect(chart, &QChart::plotAreaChanged, this, [this] { fitLabels(); });
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 220);
    setData({}, {}, QString());
}

void StrategyBoxChart::setData(const QStringList &strategies, const QVector<Distribution> &boxes,
                               const QString &unit)
{
    m_categories = strategies;
    m_boxes = boxes;
    m_unit = unit;
    chart()->removeAllSeries();
    auto *series = new QBoxPlotSeries;
    double low = 0;
    double high = 0;
    for (int i = 0; i < boxes.size(); ++i) {
        const Distribution &b = boxes[i];
        series->append(new QBoxSet(b.low, b.q1, b.median, b.q3, b.high, strategies.value(i)));
        low = std::min(low, b.low);
        high = std::max(high, b.high);
    }
    chart()->addSeries(series);
    // After addSeries: the chart's theme colours the boxes it is given.
    QColor fill = m_color;
    fill.setAlpha(110);
    for (QBoxSet *set : series->boxSets()) {
        set->setBrush(fill);
        set->setPen(QPen(m_color.darker(140), 1.5));
    }
    connect(series, &QBoxPlotSeries::hovered, this, [this, series](bool on, QBoxSet *set) {
        const int index = int(series->boxSets().indexOf(set));
        if (!on || index < 0) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(QCursor::pos(), boxText(index));
    });
    m_axisX->clear();
    m_axisX->append(strategies.isEmpty() ? QStringList {QString()} : strategies);
    series->attachAxis(m_axisX);
    series->attachAxis(m_axisY);
    // Whiskers end on the plot's edge otherwise.
    const double margin = 0.04 * (high - low);
    setRoundTicks(m_axisY, low < 0 ? low - margin : low, high + margin);
    fitLabels();
}

void StrategyBoxChart::fitLabels()
{
    fitCategoryLabels(m_axisX, m_categories, chart()->plotArea().width(), font());
}

Distribution StrategyBoxChart::box(int strategy) const
{
    if (strategy < 0 || strategy >= m_boxes.size())
        return {NAN, NAN, NAN, NAN, NAN};
    return m_boxes[strategy];
}

QString StrategyBoxChart::boxText(int strategy) const
{
    if (strategy < 0 || strategy >= m_boxes.size())
        return {};
    const Distribution &b = m_boxes[strategy];
    const auto number = [this](double v) { return QLocale().toString(v, 'f', 2) + m_unit; };
    return tr("%1\nwhisker high: %2\nupper quartile: %3\nmedian: %4\nlower quartile: %5\n"
              "whisker low: %6")
        .arg(m_categories.value(strategy), number(b.high), number(b.q3), number(b.median),
             number(b.q1), number(b.low));
}

}  // namespace ptwb::ui
