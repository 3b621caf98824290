#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QHash>
#include <QImage>
#include <QRectF>
#include <QVector>

#include <cmath>

namespace ptwb::ui {

// One point of the trade-off chart. `mode` is the caller's index of the mode.
struct ChartPoint
{
    int mode = -1;
    double powerW = 0;
    double time = 0;
};

// Values -> scene coordinates of the chart's plot area (linear axes). The chart recomputes it
// whenever the plot area or an axis range changes; items paint and pick with it.
struct PlotMapping
{
    QRectF plotArea;
    double xMin = 0, xMax = 1, yMin = 0, yMax = 1;

    bool isValid() const
    {
        return plotArea.width() > 0 && plotArea.height() > 0 && xMax > xMin && yMax > yMin;
    }
    double sceneX(double x) const
    {
        return plotArea.left() + (x - xMin) / (xMax - xMin) * plotArea.width();
    }
    double sceneY(double y) const
    {
        return plotArea.bottom() - (y - yMin) / (yMax - yMin) * plotArea.height();
    }
    QPointF toScene(double x, double y) const { return {sceneX(x), sceneY(y)}; }
    double valueX(double sx) const
    {
        return xMin + (sx - plotArea.left()) / plotArea.width() * (xMax - xMin);
    }
    double valueY(double sy) const
    {
        return yMin + (plotArea.bottom() - sy) / plotArea.height() * (yMax - yMin);
    }
    bool operator==(const PlotMapping &o) const
    {
        return plotArea == o.plotArea && xMin == o.xMin && xMax == o.xMax && yMin == o.yMin &&
            yMax == o.yMax;
    }
    bool operator!=(const PlotMapping &o) const { return !(*this == o); }
};

struct MarkerStyle
{
    QColor fill;
    QColor outline;  // invalid: none
    qreal diameter = 4;
    qreal outlineWidth = 0;
};

// Thousands of markers painted by one graphics item. Qt Charts' QScatterSeries makes one
// QGraphicsItem per marker, which takes hundreds of milliseconds for 18,096 modes; this item
// paints them from one cached image (rebuilt only when the points, the style, the plot area or
// an axis range change), so a repaint for a new selection costs one image blit. Non-raster
// painters (SVG export) get real vector circles.
class PointCloudItem : public QGraphicsItem
{
public:
    explicit PointCloudItem(QGraphicsItem *parent = nullptr);

    // Points with a non-finite or negative coordinate are left out. Points already in order of
    // power are taken as they are (no sort).
    void setPoints(const QVector<ChartPoint> &points);
    const QVector<ChartPoint> &points() const { return m_points; }
    // Position in points() of a mode, -1 if it is not there. The index is built on the first
    // call after setPoints: a layer replaced on every slider move need not pay for it.
    int indexOfMode(int mode) const;
    // Bounds of the points as (minX, minY) - (maxX, maxY); null when empty.
    QRectF valueBounds() const { return m_bounds; }

    void setStyle(const MarkerStyle &style);
    void setMapping(const PlotMapping &mapping);

    // Index of the point nearest to `scenePos` within `radius` pixels and inside the plot area,
    // or -1; `distance` receives its distance. O(log n + points in the x window).
    int nearest(const QPointF &scenePos, qreal radius, qreal *distance = nullptr) const;

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    void rebuildCache(qreal dpr);
    void paintVector(QPainter *painter) const;
    void invalidate();

    QVector<ChartPoint> m_points;
    QVector<double> m_sortedX;  // power of m_byX[i], ascending
    QVector<int> m_byX;  // indices into m_points by power
    mutable QHash<int, int> m_indexOfMode;
    mutable bool m_indexBuilt = false;
    QRectF m_bounds;
    MarkerStyle m_style;
    PlotMapping m_mapping;

    QImage m_cache;  // the plot area's aligned rect, device pixels
    QRect m_cacheRect;
    PlotMapping m_cacheMapping;
    qreal m_cacheDpr = 0;
    bool m_cacheValid = false;
};

// Budget lines, the selected mode's ring and the hovered mode's ring: the cheap layer on top, so
// a new selection or budget only repaints this.
class ChartOverlayItem : public QGraphicsItem
{
public:
    explicit ChartOverlayItem(QGraphicsItem *parent = nullptr);

    void setMapping(const PlotMapping &mapping);
    // NaN hides a line.
    void setBudgets(double powerW, double time, const QString &powerLabel,
                    const QString &timeLabel);
    void setSelection(bool shown, QPointF value);
    void setSelectionVisible(bool visible);
    void setHover(bool shown, QPointF value);
    void setColors(const QColor &accent, const QColor &budget, const QColor &halo);

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    PlotMapping m_mapping;
    double m_powerBudget = std::nan("");
    double m_timeBudget = std::nan("");
    QString m_powerLabel, m_timeLabel;
    bool m_hasSelection = false;
    bool m_selectionVisible = true;
    QPointF m_selection;
    bool m_hasHover = false;
    QPointF m_hover;
    QColor m_accent, m_budget, m_halo;
};

}  // namespace ptwb::ui
