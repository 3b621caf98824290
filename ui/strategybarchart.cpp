#include "strategybarchart.h"

#include "chartstyle.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCursor>
#include <QFontMetrics>
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
    m_axisY->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart);
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
    // Room above (and below) the bars for their value labels, on ticks of a round step
    // anchored at 0.
    const double span = high - low;
    const double raw = span / 5;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        step = factor * magnitude;
        if (step >= raw)
            break;
    }
    const double top = m_valueLabels ? high + 0.06 * span : high;
    const double bottom = low < 0 && m_valueLabels ? low - 0.06 * span : low;
    m_axisY->setTickType(QValueAxis::TicksDynamic);
    m_axisY->setTickAnchor(0);
    m_axisY->setTickInterval(step);
    m_axisY->setRange(std::floor(bottom / step) * step, std::ceil(top / step) * step);
    chart()->legend()->setVisible(metrics.size() > 1);
    // Label colours follow the palette, like the axes.
    series->setLabelsVisible(m_valueLabels && !strategies.isEmpty());
    for (QBarSet *set : series->barSets())
        set->setLabelColor(palette().color(QPalette::WindowText));
    fitCategoryLabels();
}

void StrategyBarChart::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    fitCategoryLabels();
}

// Shrinks the strategy names (down to 7 pt) when the widest no longer fits under its bars:
// Qt would elide it, even slanted.
void StrategyBarChart::fitCategoryLabels()
{
    if (m_categories.isEmpty())
        return;
    const double room = chart()->plotArea().width() / m_categories.size() - 14;
    QFont labels = font();
    for (; labels.pointSizeF() > 7; labels.setPointSizeF(labels.pointSizeF() - 0.5)) {
        const QFontMetrics metrics(labels);
        int widest = 0;
        for (const QString &name : m_categories)
            widest = std::max(widest, metrics.horizontalAdvance(name));
        if (widest <= room)
            break;
    }
    m_axisX->setLabelsFont(labels);
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
