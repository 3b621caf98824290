#include "fitplot.h"

#include "chartstyle.h"

#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <cmath>

namespace ptwb::ui {

namespace {

QAbstractAxis *makeAxis(bool logScale, QObject *parent)
{
    if (logScale) {
        auto *axis = new QLogValueAxis(parent);
        axis->setLabelFormat(QStringLiteral("%g"));
        axis->setMinorTickCount(8);
        return axis;
    }
    auto *axis = new QValueAxis(parent);
    axis->setLabelFormat(QStringLiteral("%g"));
    return axis;
}

}  // namespace

FitPlot::FitPlot(const QString &quantity, const QString &unit, bool logScale, QWidget *parent)
    : QChartView(parent)
    , m_quantity(quantity)
    , m_unit(unit)
    , m_points(new QScatterSeries)
    , m_diagonal(new QLineSeries)
    , m_log(logScale)
    , m_axisX(makeAxis(logScale, this))
    , m_axisY(makeAxis(logScale, this))
{
    auto *chart = new QChart;
    styleChart(chart, this);
    m_points->setName(tr("measured modes"));
    m_points->setMarkerSize(5);
    QColor fill = quantity == tr("Power") ? chartColors::power : chartColors::time;
    fill.setAlphaF(0.45);
    m_points->setColor(fill);
    m_points->setBorderColor(Qt::transparent);
    m_diagonal->setName(tr("y = x"));
    QPen pen(palette().color(QPalette::WindowText), 1, Qt::DashLine);
    m_diagonal->setPen(pen);
    m_axisX->setTitleText(tr("predicted (%1%2)").arg(unit, logScale ? tr(", log") : QString()));
    m_axisY->setTitleText(tr("observed (%1%2)").arg(unit, logScale ? tr(", log") : QString()));
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    for (QXYSeries *series : std::initializer_list<QXYSeries *> {m_diagonal, m_points}) {
        chart->addSeries(series);
        series->attachAxis(m_axisX);
        series->attachAxis(m_axisY);
    }
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(280, 220);
    setToolTip(tr("%1 predicted by the selected model (x) against the measurement (y) for every "
                  "measured mode of its workload; points on the dashed diagonal are exact")
                   .arg(quantity));
    clear();
}

void FitPlot::clear(const QString &message)
{
    m_points->clear();
    m_diagonal->clear();
    setRange(1, 10);
    chart()->setTitle(message.isEmpty() ? tr("%1: predicted vs observed").arg(m_quantity)
                                        : QStringLiteral("%1: %2").arg(m_quantity, message));
}

void FitPlot::setRange(double low, double high)
{
    m_axisX->setRange(low, high);
    if (auto *linear = qobject_cast<QValueAxis *>(m_axisX)) {
        // Round ticks, the same on both axes.
        linear->applyNiceNumbers();
        auto *y = static_cast<QValueAxis *>(m_axisY);
        y->setRange(linear->min(), linear->max());
        y->setTickCount(linear->tickCount());
        return;
    }
    m_axisY->setRange(low, high);
}

int FitPlot::pointCount() const
{
    return int(m_points->count());
}

void FitPlot::setData(const QVector<double> &predicted, const QVector<double> &observed,
                      double mape)
{
    QList<QPointF> points;
    points.reserve(predicted.size());
    double low = INFINITY;
    double high = -INFINITY;
    for (int i = 0; i < predicted.size() && i < observed.size(); ++i) {
        if (!std::isfinite(predicted[i]) || !std::isfinite(observed[i]))
            continue;
        points.append({predicted[i], observed[i]});
        low = std::min({low, predicted[i], observed[i]});
        high = std::max({high, predicted[i], observed[i]});
    }
    if (points.isEmpty()) {
        clear(tr("no measured modes"));
        return;
    }
    // The same range on both axes, so the diagonal is at 45 degrees.
    if (m_log) {
        low *= 0.85;
        high *= 1.15;
    } else {
        const double margin = 0.04 * std::max(high - low, 1e-9);
        low = std::max(0.0, low - margin);
        high += margin;
    }
    m_points->replace(points);
    setRange(low, high);
    if (auto *linear = qobject_cast<QValueAxis *>(m_axisX)) {
        low = linear->min();
        high = linear->max();
    }
    m_diagonal->replace({QPointF(low, low), QPointF(high, high)});
    chart()->setTitle(tr("%1: MAPE %2 % on %3 measured modes")
                          .arg(m_quantity)
                          .arg(mape, 0, 'f', 2)
                          .arg(points.size()));
}

}  // namespace ptwb::ui
