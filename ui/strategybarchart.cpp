#include "strategybarchart.h"

#include "chartstyle.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCursor>
#include <QToolTip>
#include <QValueAxis>

#include <cmath>

namespace ptwb::ui {

StrategyBarChart::StrategyBarChart(const QString &title, const QString &axisTitle, QWidget *parent)
    : QChartView(parent)
    , m_axisX(new QBarCategoryAxis(this))
    , m_axisY(new QValueAxis(this))
{
    auto *chart = new QChart;
    styleChart(chart, this);
    chart->setTitle(title);
    m_axisY->setTitleText(axisTitle);
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart);
    // The plot area settles after a resize, in the chart's own layout pass.
    connect(chart, &QChart::plotAreaChanged, this, [this] { fitCategoryLabels(); });
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 220);
    setData({}, {});
}

void StrategyBarChart::setData(const QStringList &strategies, const QVector<Metric> &metrics)
{
    m_categories = strategies;
    m_metrics = metrics;
    chart()->removeAllSeries();
    auto *series = new QBarSeries;
    double low = 0;
    double high = 1;
    for (const Metric &metric : metrics) {
        auto *set = new QBarSet(metric.name);
        set->setColor(metric.color);
        set->setBorderColor(metric.color.darker(130));
        for (double v : metric.values) {
            set->append(std::isfinite(v) ? v : 0);
            low = std::min(low, v);
            high = std::max(high, v);
        }
        series->append(set);
    }
    series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(3);
    connect(series, &QBarSeries::hovered, this, [this](bool on, int index, QBarSet *set) {
        if (!on || index < 0 || index >= m_categories.size()) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(QCursor::pos(),
                           QStringLiteral("%1 — %2: %3")
                               .arg(m_categories[index], set->label())
                               .arg(set->at(index), 0, 'f', 2));
    });
    chart()->addSeries(series);
    m_axisX->clear();
    m_axisX->append(strategies.isEmpty() ? QStringList {QString()} : strategies);
    series->attachAxis(m_axisX);
    series->attachAxis(m_axisY);
    // Room above (and below) the bars for their value labels.
    const double span = high - low;
    const double top = m_valueLabels ? high + 0.06 * span : high;
    const double bottom = low < 0 && m_valueLabels ? low - 0.06 * span : low;
    setRoundTicks(m_axisY, bottom, top);
    chart()->legend()->setVisible(metrics.size() > 1);
    // Label colours follow the palette, like the axes.
    series->setLabelsVisible(m_valueLabels && !strategies.isEmpty());
    for (QBarSet *set : series->barSets())
        set->setLabelColor(palette().color(QPalette::WindowText));
    fitCategoryLabels();
}

void StrategyBarChart::fitCategoryLabels()
{
    ui::fitCategoryLabels(m_axisX, m_categories, chart()->plotArea().width(), font());
}

void StrategyBarChart::setValueLabelsVisible(bool visible)
{
    m_valueLabels = visible;
    setData(m_categories, m_metrics);
}

double StrategyBarChart::value(int metric, int strategy) const
{
    if (metric < 0 || metric >= m_metrics.size() || strategy < 0 ||
        strategy >= m_metrics[metric].values.size())
        return NAN;
    return m_metrics[metric].values[strategy];
}

}  // namespace ptwb::ui
