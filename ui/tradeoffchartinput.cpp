// TradeoffChart, part two: axis ranges, zoom and pan, picking, hover and the mouse and keyboard.
// (Data, layers, theme and export are in tradeoffchart.cpp.)

#include "tradeoffchart.h"

#include <QApplication>
#include <QChart>
#include <QKeyEvent>
#include <QLineSeries>
#include <QMouseEvent>
#include <QRubberBand>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

namespace {

constexpr qreal kPickRadius = 8;  // pixels
constexpr double kWheelStep = 0.85;  // range factor per wheel notch (15 degrees)

// 1, 2 or 5 times a power of ten, near `raw`.
double niceStep(double raw)
{
    if (!(raw > 0) || !std::isfinite(raw))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / magnitude;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * magnitude;
}

}  // namespace

// --- geometry, zoom and pan ---------------------------------------------------------------------

PlotMapping TradeoffChart::mapping() const
{
    PlotMapping m;
    m.plotArea = m_chart->plotArea();
    m.xMin = m_axisX->min();
    m.xMax = m_axisX->max();
    m.yMin = m_axisY->min();
    m.yMax = m_axisY->max();
    return m;
}

void TradeoffChart::updateMapping()
{
    const PlotMapping m = mapping();
    m_predicted->setMapping(m);
    m_observed->setMapping(m);
    m_overlay->setMapping(m);
}

QRectF TradeoffChart::visibleRange() const
{
    return QRectF(QPointF(m_axisX->min(), m_axisY->min()), QPointF(m_axisX->max(), m_axisY->max()));
}

void TradeoffChart::setTimeCeiling(double time)
{
    m_timeCeiling = time;
    updateHomeRange();
}

void TradeoffChart::updateHomeRange()
{
    // By hand: QRectF's union drops rectangles of zero width or height (one point, a line).
    double bx0 = INFINITY, bx1 = -INFINITY, by0 = INFINITY, by1 = -INFINITY;
    const auto add = [&](const QPointF &p) {
        bx0 = std::min(bx0, p.x());
        bx1 = std::max(bx1, p.x());
        by0 = std::min(by0, p.y());
        by1 = std::max(by1, p.y());
    };
    for (const PointCloudItem *cloud : {m_predicted, m_observed}) {
        if (!cloud->points().isEmpty()) {
            add(cloud->valueBounds().topLeft());
            add(cloud->valueBounds().bottomRight());
        }
    }
    for (const QLineSeries *front : {m_observedFront, m_predictedFront}) {
        for (const QPointF &p : front->points())
            add(p);
    }
    if (!(bx0 <= bx1)) {  // nothing to show yet
        bx0 = by0 = 0;
        bx1 = 60;
        by1 = 1000;
    }
    const auto padded = [](double lo, double hi, double *outLo, double *outHi) {
        const double span = hi - lo > 0 ? hi - lo : std::max(1.0, std::abs(hi));
        const double step = niceStep(span / 8);
        const double a = lo - span * 0.04;
        *outLo = std::floor((lo >= 0 ? std::max(0.0, a) : a) / step) * step;
        *outHi = std::ceil((hi + span * 0.04) / step) * step;
    };
    double x0, x1, y0, y1;
    padded(bx0, bx1, &x0, &x1);
    padded(by0, by1, &y0, &y1);
    m_all = QRectF(QPointF(x0, y0), QPointF(x1, y1));
    if (std::isfinite(m_timeCeiling) && m_timeCeiling > by0 && m_timeCeiling < by1)
        padded(by0, m_timeCeiling, &y0, &y1);
    m_home = QRectF(QPointF(x0, y0), QPointF(x1, y1));
    if (!m_zoomed)
        setRange(x0, x1, y0, y1);
}

void TradeoffChart::setRange(double x0, double x1, double y0, double y1)
{
    const auto apply = [](QValueAxis *axis, double lo, double hi) {
        const double step = niceStep((hi - lo) / 7);
        const int decimals = std::max(0, int(-std::floor(std::log10(step))));
        axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
        // In the order that never asks for thousands of ticks in between.
        if (hi - lo < axis->max() - axis->min()) {
            axis->setRange(lo, hi);
            axis->setTickInterval(step);
        } else {
            axis->setTickInterval(step);
            axis->setRange(lo, hi);
        }
    };
    apply(m_axisX, x0, x1);
    apply(m_axisY, y0, y1);
}

void TradeoffChart::resetZoom()
{
    m_zoomed = false;
    setRange(m_home.left(), m_home.right(), m_home.top(), m_home.bottom());
}

void TradeoffChart::zoomIn()
{
    zoomAround(m_chart->plotArea().center(), 0.8);
}

void TradeoffChart::zoomOut()
{
    zoomAround(m_chart->plotArea().center(), 1.25);
}

void TradeoffChart::zoomAround(QPointF chartPos, double factor)
{
    const PlotMapping m = mapping();
    if (!m.isValid())
        return;
    const double cx = m.valueX(chartPos.x());
    const double cy = m.valueY(chartPos.y());
    const double x0 = cx + (m.xMin - cx) * factor, x1 = cx + (m.xMax - cx) * factor;
    const double y0 = cy + (m.yMin - cy) * factor, y1 = cy + (m.yMax - cy) * factor;
    if (factor > 1 && x1 - x0 >= m_all.width() && y1 - y0 >= m_all.height()) {
        // Zooming out past everything ends at the view of every point.
        m_zoomed = true;
        setRange(m_all.left(), m_all.right(), m_all.top(), m_all.bottom());
        return;
    }
    if (x1 - x0 < m_home.width() * 1e-4 || y1 - y0 < m_home.height() * 1e-4)
        return;
    m_zoomed = true;
    setRange(x0, x1, y0, y1);
}

// --- picking and interaction --------------------------------------------------------------------

QPointF TradeoffChart::toChart(const QPoint &viewPos) const
{
    return m_chart->mapFromScene(mapToScene(viewPos));
}

int TradeoffChart::modeAt(const QPoint &viewPos) const
{
    const QPointF pos = toChart(viewPos);
    // Profiled points are drawn on top, so they win.
    for (const PointCloudItem *layer : {m_observed, m_predicted}) {
        if (!layer->isVisible())
            continue;
        const int i = layer->nearest(pos, kPickRadius);
        if (i >= 0)
            return layer->points()[i].mode;
    }
    return -1;
}

QPoint TradeoffChart::viewPosOf(int mode) const
{
    const ChartPoint *p = findMode(mode);
    const PlotMapping m = mapping();
    if (!p || !m.isValid() || p->powerW < m.xMin || p->powerW > m.xMax || p->time < m.yMin ||
        p->time > m.yMax)
        return QPoint();
    return mapFromScene(m_chart->mapToScene(m.toScene(p->powerW, p->time)));
}

void TradeoffChart::setHovered(int mode, const QPoint &viewPos)
{
    if (mode == m_hoveredMode)
        return;
    m_hoveredMode = mode;
    const ChartPoint *p = findMode(mode);
    m_overlay->setHover(p != nullptr, p ? QPointF(p->powerW, p->time) : QPointF());
    if (mode >= 0) {
        QToolTip::showText(viewport()->mapToGlobal(viewPos), tooltipText(mode), viewport());
        viewport()->setCursor(Qt::PointingHandCursor);
    } else {
        QToolTip::hideText();
        viewport()->setCursor(Qt::CrossCursor);
    }
    Q_EMIT modeHovered(mode);
}

bool TradeoffChart::viewportEvent(QEvent *event)
{
    switch (event->type()) {
    case QEvent::Leave:
        setHovered(-1, QPoint());
        break;
    case QEvent::ToolTip: {
        // A hovered point already shows its own tooltip; elsewhere, how to use the chart. The
        // small rectangle makes it go away as soon as the mouse moves on.
        const auto *help = static_cast<QHelpEvent *>(event);
        if (m_hoveredMode < 0 && m_drag == Drag::None)
            QToolTip::showText(help->globalPos(), toolTip(), viewport(),
                               QRect(help->pos() - QPoint(12, 12), QSize(24, 24)));
        return true;
    }
    default:
        break;
    }
    return QChartView::viewportEvent(event);
}

void TradeoffChart::mousePressEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (event->button() != Qt::LeftButton || !m_chart->plotArea().contains(toChart(pos))) {
        QChartView::mousePressEvent(event);  // the legend's markers take their clicks here
        return;
    }
    m_pressPos = pos;
    m_pressRange = visibleRange();
    if (event->modifiers() & Qt::ShiftModifier) {
        m_drag = Drag::RubberBand;
        if (!m_rubberBand)
            m_rubberBand = new QRubberBand(QRubberBand::Rectangle, viewport());
        m_rubberBand->setGeometry(QRect(pos, QSize()));
        m_rubberBand->show();
    } else {
        m_drag = Drag::Pending;
    }
    event->accept();
}

void TradeoffChart::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    switch (m_drag) {
    case Drag::None:
        setHovered(modeAt(pos), pos);
        QChartView::mouseMoveEvent(event);
        return;
    case Drag::RubberBand:
        m_rubberBand->setGeometry(QRect(m_pressPos, pos).normalized());
        break;
    case Drag::Pending:
        if ((pos - m_pressPos).manhattanLength() < QApplication::startDragDistance())
            break;
        m_drag = Drag::Panning;
        setHovered(-1, pos);
        viewport()->setCursor(Qt::ClosedHandCursor);
        Q_FALLTHROUGH();
    case Drag::Panning: {
        const QRectF area = m_chart->plotArea();
        const QPoint d = pos - m_pressPos;
        const double dx = -d.x() / area.width() * m_pressRange.width();
        const double dy = d.y() / area.height() * m_pressRange.height();
        m_zoomed = true;
        setRange(m_pressRange.left() + dx, m_pressRange.right() + dx, m_pressRange.top() + dy,
                 m_pressRange.bottom() + dy);
        break;
    }
    }
    event->accept();
}

void TradeoffChart::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || m_drag == Drag::None) {
        QChartView::mouseReleaseEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    const Drag drag = m_drag;
    m_drag = Drag::None;
    viewport()->setCursor(Qt::CrossCursor);
    if (drag == Drag::Pending) {
        if (const int mode = modeAt(pos); mode >= 0) {
            setSelected(mode);
            Q_EMIT modeClicked(mode);
        }
    } else if (drag == Drag::RubberBand) {
        const QRect band = m_rubberBand->geometry();
        m_rubberBand->hide();
        const PlotMapping m = mapping();
        if (band.width() > 4 && band.height() > 4 && m.isValid()) {
            const QPointF a = toChart(band.topLeft());
            const QPointF b = toChart(band.bottomRight());
            m_zoomed = true;
            setRange(std::max(m.xMin, m.valueX(a.x())), std::min(m.xMax, m.valueX(b.x())),
                     std::max(m.yMin, m.valueY(b.y())), std::min(m.yMax, m.valueY(a.y())));
        }
    }
    event->accept();
}

void TradeoffChart::wheelEvent(QWheelEvent *event)
{
    const int delta = event->angleDelta().y();
    if (delta == 0) {
        event->ignore();
        return;
    }
    QPointF pos = toChart(event->position().toPoint());
    if (!m_chart->plotArea().contains(pos))
        pos = m_chart->plotArea().center();
    zoomAround(pos, std::pow(kWheelStep, delta / 120.0));
    event->accept();
}

void TradeoffChart::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_0:
    case Qt::Key_Home:
        resetZoom();
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        break;
    case Qt::Key_Minus:
    case Qt::Key_Underscore:
        zoomOut();
        break;
    default:
        QChartView::keyPressEvent(event);
        return;
    }
    event->accept();
}

}  // namespace ptwb::ui
