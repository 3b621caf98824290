#pragma once

#include "pointcloud.h"

#include <QChartView>
#include <QPointer>

#include <array>
#include <functional>

class QLegendMarker;
class QLineSeries;
class QRubberBand;
class QScatterSeries;
class QValueAxis;
class QXYSeries;

namespace ptwb::ui {

// The Explore view's power/time chart: every mode of a device as a light predicted cloud, the
// profiled modes as solid points, the observed and predicted Pareto fronts, the selected mode
// and the budget lines. Wheel zooms around the cursor, dragging pans, Shift+drag zooms to a
// rectangle, 0/Home resets; hover shows a tooltip, a click selects (modeClicked). The legend
// toggles each layer. Follows the palette (dark chart on a dark window).
//
// The two point layers are PointCloudItems in the chart's scene, not QScatterSeries (one
// graphics item per marker is far too slow for 18,096 modes); an empty QScatterSeries of the
// same look stands for each in the legend.
class TradeoffChart : public QChartView
{
    Q_OBJECT

public:
    enum class Layer { Predicted, Observed, ObservedFront, PredictedFront, Selected };
    Q_ENUM(Layer)

    explicit TradeoffChart(QWidget *parent = nullptr);
    ~TradeoffChart() override;

    // Each replaces its layer; points with a non-finite or negative value are skipped. The axes
    // follow the data unless the user has zoomed or panned.
    void setPredicted(const QVector<ChartPoint> &points);
    void setObserved(const QVector<ChartPoint> &points);
    void setFronts(const QVector<ChartPoint> &observedFront,
                   const QVector<ChartPoint> &predictedFront);
    // -1: none. Looks the mode up in the observed points, then the predicted ones. Cheap: only
    // the overlay repaints.
    void setSelected(int mode);
    int selected() const { return m_selectedMode; }
    // NaN hides a line.
    void setBudgets(double powerW, double time);
    void setTimeAxisTitle(const QString &title);
    void setPowerAxisTitle(const QString &title);
    // Text of the hover tooltip of a mode; without one the tooltip shows power and time.
    // Reset zoom shows times up to this, not the slowest outliers (NaN: everything); zooming
    // out still reaches every point.
    void setTimeCeiling(double time);
    void setTooltipProvider(std::function<QString(int mode)> provider);

    // PNG or SVG by the file's suffix, at the size of the view.
    bool exportTo(const QString &path, QString *error = nullptr);

    // The mode drawn nearest to `viewPos` (viewport coordinates) within the pick radius, among
    // the visible layers (profiled points first), or -1.
    int modeAt(const QPoint &viewPos) const;
    // Where a mode is drawn (viewport coordinates); a null point when it is not on the chart.
    QPoint viewPosOf(int mode) const;

    void setLayerVisible(Layer layer, bool visible);
    bool isLayerVisible(Layer layer) const;
    QLegendMarker *legendMarker(Layer layer) const;
    // Axis ranges as (min x, min y) - (max x, max y).
    QRectF visibleRange() const;
    bool isZoomed() const { return m_zoomed; }

public Q_SLOTS:
    void resetZoom();
    void zoomIn();
    void zoomOut();

Q_SIGNALS:
    void modeClicked(int mode);
    void modeHovered(int mode);  // -1 when leaving
    void layerVisibilityChanged(ptwb::ui::TradeoffChart::Layer layer, bool visible);

protected:
    bool viewportEvent(QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    enum class Drag { None, Pending, Panning, RubberBand };

    void applyTheme();
    void styleLegendMarker(Layer layer);
    QXYSeries *seriesOf(Layer layer) const;
    PlotMapping mapping() const;
    void updateMapping();
    void updateHomeRange();
    void setRange(double x0, double x1, double y0, double y1);
    void zoomAround(QPointF scenePos, double factor);
    void updateSelection();
    void updateBudgetLabels();
    void setHovered(int mode, const QPoint &viewPos);
    QString tooltipText(int mode) const;
    QPointF toChart(const QPoint &viewPos) const;
    const ChartPoint *findMode(int mode) const;

    QChart *m_chart;
    QValueAxis *m_axisX;
    QValueAxis *m_axisY;
    QScatterSeries *m_predictedLegend;
    QScatterSeries *m_observedLegend;
    QLineSeries *m_observedFront;
    QLineSeries *m_predictedFront;
    QScatterSeries *m_selectedLegend;
    PointCloudItem *m_predicted;
    PointCloudItem *m_observed;
    ChartOverlayItem *m_overlay;
    std::array<bool, 5> m_layerVisible {true, true, true, true, true};
    std::array<QPen, 5> m_legendPen;  // each layer's look when shown
    std::array<QBrush, 5> m_legendBrush;

    std::function<QString(int)> m_tooltip;
    int m_selectedMode = -1;
    int m_hoveredMode = -1;
    double m_powerBudget;
    double m_timeBudget;
    QRectF m_home;  // axis ranges Reset zoom shows: all data, up to the time ceiling
    QRectF m_all;  // axis ranges that show every point
    double m_timeCeiling = qQNaN();
    bool m_zoomed = false;

    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    QRectF m_pressRange;
    QPointer<QRubberBand> m_rubberBand;
    bool m_applyingTheme = false;
};

}  // namespace ptwb::ui
