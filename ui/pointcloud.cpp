#include "pointcloud.h"

#include <QPaintEngine>
#include <QPainter>

#include <algorithm>

namespace ptwb::ui {

namespace {

bool usable(const ChartPoint &p)
{
    return std::isfinite(p.powerW) && std::isfinite(p.time) && p.powerW >= 0 && p.time >= 0;
}

bool inside(const PlotMapping &m, double x, double y)
{
    return x >= m.xMin && x <= m.xMax && y >= m.yMin && y <= m.yMax;
}

// One antialiased marker in device pixels, stamped once per point.
QImage markerSprite(const MarkerStyle &style, qreal dpr)
{
    const qreal d = (style.diameter + style.outlineWidth) * dpr;
    const int size = int(std::ceil(d)) + 2;
    QImage sprite(size, size, QImage::Format_ARGB32_Premultiplied);
    sprite.fill(Qt::transparent);
    QPainter p(&sprite);
    p.setRenderHint(QPainter::Antialiasing);
    if (style.outline.isValid() && style.outlineWidth > 0)
        p.setPen(QPen(style.outline, style.outlineWidth * dpr));
    else
        p.setPen(Qt::NoPen);
    p.setBrush(style.fill);
    const qreal r = style.diameter * dpr / 2;
    p.drawEllipse(QPointF(size / 2.0, size / 2.0), r, r);
    return sprite;
}

}  // namespace

PointCloudItem::PointCloudItem(QGraphicsItem *parent)
    : QGraphicsItem(parent)
{
    setAcceptedMouseButtons(Qt::NoButton);
    setAcceptHoverEvents(false);
}

void PointCloudItem::setPoints(const QVector<ChartPoint> &points)
{
    m_points.clear();
    m_points.reserve(points.size());
    m_indexOfMode.clear();
    m_indexBuilt = false;
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    for (const ChartPoint &p : points) {
        if (!usable(p))
            continue;
        if (m_points.isEmpty()) {
            x0 = x1 = p.powerW;
            y0 = y1 = p.time;
        }
        x0 = std::min(x0, p.powerW);
        x1 = std::max(x1, p.powerW);
        y0 = std::min(y0, p.time);
        y1 = std::max(y1, p.time);
        m_points.append(p);
    }
    m_bounds = m_points.isEmpty() ? QRectF() : QRectF(QPointF(x0, y0), QPointF(x1, y1));
    m_byX.resize(m_points.size());
    for (int i = 0; i < m_byX.size(); ++i)
        m_byX[i] = i;
    const auto byPower = [this](int a, int b) { return m_points[a].powerW < m_points[b].powerW; };
    if (!std::is_sorted(m_byX.begin(), m_byX.end(), byPower))
        std::sort(m_byX.begin(), m_byX.end(), byPower);
    m_sortedX.resize(m_byX.size());
    for (int i = 0; i < m_byX.size(); ++i)
        m_sortedX[i] = m_points[m_byX[i]].powerW;
    invalidate();
}

int PointCloudItem::indexOfMode(int mode) const
{
    if (!m_indexBuilt) {
        m_indexOfMode.reserve(m_points.size());
        for (int i = 0; i < m_points.size(); ++i)
            m_indexOfMode.insert(m_points[i].mode, i);
        m_indexBuilt = true;
    }
    return m_indexOfMode.value(mode, -1);
}

void PointCloudItem::setStyle(const MarkerStyle &style)
{
    m_style = style;
    invalidate();
}

void PointCloudItem::setMapping(const PlotMapping &mapping)
{
    if (mapping == m_mapping)
        return;
    prepareGeometryChange();
    m_mapping = mapping;
    update();
}

void PointCloudItem::invalidate()
{
    m_cacheValid = false;
    update();
}

int PointCloudItem::nearest(const QPointF &scenePos, qreal radius, qreal *distance) const
{
    if (!m_mapping.isValid() || m_points.isEmpty())
        return -1;
    const double lo = m_mapping.valueX(scenePos.x() - radius);
    const double hi = m_mapping.valueX(scenePos.x() + radius);
    auto it = std::lower_bound(m_sortedX.cbegin(), m_sortedX.cend(), lo);
    int best = -1;
    qreal bestD2 = radius * radius;
    for (; it != m_sortedX.cend() && *it <= hi; ++it) {
        const int i = m_byX[int(it - m_sortedX.cbegin())];
        const ChartPoint &p = m_points[i];
        if (!inside(m_mapping, p.powerW, p.time))
            continue;
        const QPointF d = m_mapping.toScene(p.powerW, p.time) - scenePos;
        const qreal d2 = d.x() * d.x() + d.y() * d.y();
        if (d2 <= bestD2) {
            bestD2 = d2;
            best = i;
        }
    }
    if (best >= 0 && distance)
        *distance = std::sqrt(bestD2);
    return best;
}

QRectF PointCloudItem::boundingRect() const
{
    const qreal pad = m_style.diameter + m_style.outlineWidth + 2;
    return m_mapping.plotArea.adjusted(-pad, -pad, pad, pad);
}

void PointCloudItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    if (!m_mapping.isValid() || m_points.isEmpty())
        return;
    if (painter->paintEngine() && painter->paintEngine()->type() != QPaintEngine::Raster) {
        paintVector(painter);
        return;
    }
    const qreal dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    if (!m_cacheValid || m_cacheMapping != m_mapping || m_cacheDpr != dpr)
        rebuildCache(dpr);
    painter->drawImage(m_cacheRect.topLeft(), m_cache);
}

void PointCloudItem::rebuildCache(qreal dpr)
{
    m_cacheRect = m_mapping.plotArea.toAlignedRect();
    m_cache = QImage(m_cacheRect.size() * dpr, QImage::Format_ARGB32_Premultiplied);
    m_cache.fill(Qt::transparent);
    const QImage sprite = markerSprite(m_style, dpr);
    const qreal half = sprite.width() / 2.0;
    {
        QPainter p(&m_cache);
        for (const ChartPoint &point : std::as_const(m_points)) {
            if (!inside(m_mapping, point.powerW, point.time))
                continue;
            const QPointF s = (m_mapping.toScene(point.powerW, point.time) - m_cacheRect.topLeft());
            p.drawImage(
                QPoint(int(std::lround(s.x() * dpr - half)), int(std::lround(s.y() * dpr - half))),
                sprite);
        }
    }
    m_cache.setDevicePixelRatio(dpr);
    m_cacheMapping = m_mapping;
    m_cacheDpr = dpr;
    m_cacheValid = true;
}

void PointCloudItem::paintVector(QPainter *painter) const
{
    painter->save();
    painter->setClipRect(m_mapping.plotArea);
    painter->setRenderHint(QPainter::Antialiasing);
    if (m_style.outline.isValid() && m_style.outlineWidth > 0)
        painter->setPen(QPen(m_style.outline, m_style.outlineWidth));
    else
        painter->setPen(Qt::NoPen);
    painter->setBrush(m_style.fill);
    const qreal r = m_style.diameter / 2;
    for (const ChartPoint &point : m_points) {
        if (inside(m_mapping, point.powerW, point.time))
            painter->drawEllipse(m_mapping.toScene(point.powerW, point.time), r, r);
    }
    painter->restore();
}

// --- ChartOverlayItem ---------------------------------------------------------------------------

ChartOverlayItem::ChartOverlayItem(QGraphicsItem *parent)
    : QGraphicsItem(parent)
{
    setAcceptedMouseButtons(Qt::NoButton);
}

void ChartOverlayItem::setMapping(const PlotMapping &mapping)
{
    if (mapping == m_mapping)
        return;
    prepareGeometryChange();
    m_mapping = mapping;
    update();
}

void ChartOverlayItem::setBudgets(double powerW, double time, const QString &powerLabel,
                                  const QString &timeLabel)
{
    m_powerBudget = powerW;
    m_timeBudget = time;
    m_powerLabel = powerLabel;
    m_timeLabel = timeLabel;
    update();
}

void ChartOverlayItem::setSelection(bool shown, QPointF value)
{
    m_hasSelection = shown;
    m_selection = value;
    update();
}

void ChartOverlayItem::setSelectionVisible(bool visible)
{
    m_selectionVisible = visible;
    update();
}

void ChartOverlayItem::setHover(bool shown, QPointF value)
{
    if (shown == m_hasHover && value == m_hover)
        return;
    m_hasHover = shown;
    m_hover = value;
    update();
}

void ChartOverlayItem::setColors(const QColor &accent, const QColor &budget, const QColor &halo)
{
    m_accent = accent;
    m_budget = budget;
    m_halo = halo;
    update();
}

QRectF ChartOverlayItem::boundingRect() const
{
    return m_mapping.plotArea.adjusted(-14, -14, 14, 14);
}

void ChartOverlayItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    if (!m_mapping.isValid())
        return;
    const PlotMapping &m = m_mapping;
    const QRectF area = m.plotArea;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setClipRect(area);
    QPen dashed(m_budget, 1.25, Qt::DashLine);
    dashed.setCapStyle(Qt::FlatCap);
    const QFontMetricsF metrics(painter->font());
    if (std::isfinite(m_powerBudget) && m_powerBudget >= m.xMin && m_powerBudget <= m.xMax) {
        const qreal x = m.sceneX(m_powerBudget);
        painter->setPen(dashed);
        painter->drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        painter->setPen(m_budget);
        const qreal w = metrics.horizontalAdvance(m_powerLabel);
        // The label sits right of the line unless that would leave the plot area.
        const qreal lx = x + 5 + w > area.right() ? x - 5 - w : x + 5;
        painter->drawText(QPointF(lx, area.top() + metrics.ascent() + 3), m_powerLabel);
    }
    if (std::isfinite(m_timeBudget) && m_timeBudget >= m.yMin && m_timeBudget <= m.yMax) {
        const qreal y = m.sceneY(m_timeBudget);
        painter->setPen(dashed);
        painter->drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        painter->setPen(m_budget);
        const qreal w = metrics.horizontalAdvance(m_timeLabel);
        const qreal ly = y - 5 - metrics.descent() < area.top() + metrics.height()
            ? y + 5 + metrics.ascent()
            : y - 5 - metrics.descent();
        painter->drawText(QPointF(area.right() - 6 - w, ly), m_timeLabel);
    }
    painter->setClipping(false);
    const auto visible = [&m](QPointF v) {
        return v.x() >= m.xMin && v.x() <= m.xMax && v.y() >= m.yMin && v.y() <= m.yMax;
    };
    if (m_hasHover && visible(m_hover)) {
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(m_budget, 1.5));
        painter->drawEllipse(m.toScene(m_hover.x(), m_hover.y()), 6, 6);
    }
    if (m_hasSelection && m_selectionVisible && visible(m_selection)) {
        const QPointF c = m.toScene(m_selection.x(), m_selection.y());
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(m_halo, 6));
        painter->drawEllipse(c, 10, 10);
        painter->setPen(QPen(m_accent, 3));
        painter->drawEllipse(c, 10, 10);
        painter->setPen(QPen(m_halo, 1));
        painter->setBrush(m_accent);
        painter->drawEllipse(c, 3.5, 3.5);
    }
    painter->restore();
}

}  // namespace ptwb::ui
