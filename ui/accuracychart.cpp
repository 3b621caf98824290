#include "accuracychart.h"

#include "chartstyle.h"
#include "predict/accuracybench.h"

#include <QAreaSeries>
#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>

#include <cmath>

namespace ptwb::ui {

namespace {

bool isBaseline(const QString &method)
{
    return method.endsWith(QLatin1String("-baseline"));
}

QColor colorOf(const QString &method)
{
    return method.startsWith(QLatin1String("pt")) ? chartColors::pt : chartColors::nn;
}

}  // namespace

AccuracyChart::AccuracyChart(Quantity quantity, QWidget *parent)
    : QChartView(parent)
    , m_quantity(quantity)
    , m_axisX(new QValueAxis(this))
    , m_axisY(new QValueAxis(this))
{
    auto *chart = new QChart;
    styleChart(chart, this);
    chart->setTitle(quantity == Quantity::Time ? tr("Time prediction error")
                                               : tr("Power prediction error"));
    m_axisX->setTitleText(tr("profiled modes"));
    m_axisY->setTitleText(tr("MAPE %"));
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 240);
    setToolTip(tr("Median MAPE over the repeats on the modes that were not profiled; the band "
                  "runs from the first to the third quartile. Hover a point for its numbers"));
    clear();
}

QString AccuracyChart::methodLabel(const QString &method)
{
    const QString name = method.startsWith(QLatin1String("pt")) ? tr("PT") : tr("NN");
    return isBaseline(method) ? tr("%1 (published)").arg(name) : name;
}

void AccuracyChart::clear()
{
    chart()->removeAllSeries();  // deletes the medians and the bands, not their edges
    for (const Line &line : std::as_const(m_lines)) {
        delete line.q1;
        delete line.q3;
    }
    m_lines.clear();
    m_maxSamples = 0;
    m_maxMape = 0;
    m_axisX->setRange(0, 100);
    m_axisY->setRange(0, 10);
}

AccuracyChart::Line &AccuracyChart::lineOf(const QString &method)
{
    const auto found = m_lines.find(method);
    if (found != m_lines.end())
        return *found;
    Line line;
    const QColor color = colorOf(method);
    line.q1 = new QLineSeries(this);
    line.q3 = new QLineSeries(this);
    line.band = new QAreaSeries(line.q3, line.q1);
    QColor fill = color;
    fill.setAlphaF(isBaseline(method) ? 0.12 : 0.22);
    line.band->setBrush(fill);
    line.band->setPen(Qt::NoPen);
    line.band->setName(tr("%1 q1–q3").arg(methodLabel(method)));
    line.median = new QLineSeries;
    line.median->setName(methodLabel(method));
    QPen pen(color, 2);
    if (isBaseline(method))
        pen.setStyle(Qt::DashLine);
    line.median->setPen(pen);
    line.median->setPointsVisible(true);
    for (QAbstractSeries *series :
         {static_cast<QAbstractSeries *>(line.band), static_cast<QAbstractSeries *>(line.median)}) {
        chart()->addSeries(series);
        series->attachAxis(m_axisX);
        series->attachAxis(m_axisY);
    }
    // One legend entry per method: the band shares the line's colour.
    for (QLegendMarker *marker : chart()->legend()->markers(line.band))
        marker->setVisible(false);
    connect(line.median, &QLineSeries::hovered, this,
            [this, method](const QPointF &point, bool state) {
                if (!state) {
                    QToolTip::hideText();
                    return;
                }
                // The nearest sample size: `point` lies anywhere on the line.
                const Line &hovered = m_lines.value(method);
                int nearest = -1;
                for (int i = 0; i < hovered.median->count(); ++i) {
                    if (nearest < 0 ||
                        std::abs(hovered.median->at(i).x() - point.x()) <
                            std::abs(hovered.median->at(nearest).x() - point.x()))
                        nearest = i;
                }
                if (nearest < 0)
                    return;
                QToolTip::showText(QCursor::pos(),
                                   tr("%1, %2 profiled modes: median %3 %, quartiles %4–%5 %")
                                       .arg(methodLabel(method))
                                       .arg(hovered.median->at(nearest).x())
                                       .arg(hovered.median->at(nearest).y(), 0, 'f', 2)
                                       .arg(hovered.q1->at(nearest).y(), 0, 'f', 2)
                                       .arg(hovered.q3->at(nearest).y(), 0, 'f', 2),
                                   this);
            });
    return *m_lines.insert(method, line);
}

void AccuracyChart::addRow(const AccuracyRow &row)
{
    const Quartiles &q = m_quantity == Quantity::Time ? row.timeMape : row.powerMape;
    Line &line = lineOf(row.method);
    line.median->append(row.samples, q.median);
    line.q1->append(row.samples, q.q1);
    line.q3->append(row.samples, q.q3);
    m_maxSamples = std::max(m_maxSamples, double(row.samples));
    m_maxMape = std::max(m_maxMape, q.q3);
    updateRanges();
}

QVector<QPointF> AccuracyChart::medians(const QString &method) const
{
    const auto found = m_lines.constFind(method);
    return found == m_lines.cend() ? QVector<QPointF>() : QVector<QPointF>(found->median->points());
}

void AccuracyChart::updateRanges()
{
    setRoundTicks(m_axisX, 0, std::max(10.0, m_maxSamples));
    setRoundTicks(m_axisY, 0, std::max(1.0, m_maxMape * 1.05));
}

}  // namespace ptwb::ui
