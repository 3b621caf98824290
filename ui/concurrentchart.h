#pragma once

#include "concurrentpairs.h"

#include <QChartView>

#include <array>
#include <functional>

class QScatterSeries;
class QValueAxis;

namespace ptwb::ui {

// The chart of Explore's concurrent mode: every (mode, inference batch) pair in power vs
// training throughput, feasible pairs in colour and infeasible ones greyed, measured pairs solid
// with an outline and predicted ones light; the power budget as a vertical line and the pick
// ringed. Hover shows a pair's numbers (setTooltipProvider). The layers are PointCloudItems, as
// in the trade-off chart (one graphics item per marker is far too slow for 90,000 pairs); an
// empty QScatterSeries of the same look stands for each in the legend.
class ConcurrentChart : public QChartView
{
    Q_OBJECT

public:
    enum class Layer {
        FeasibleMeasured,
        FeasiblePredicted,
        InfeasibleMeasured,
        InfeasiblePredicted
    };

    explicit ConcurrentChart(QWidget *parent = nullptr);
    ~ConcurrentChart() override;

    // Replaces every layer and the pick; NaN hides the budget line.
    void setPicture(const ConcurrentPicture &picture, double powerBudgetW);
    void clear();
    const QVector<ChartPoint> &points(Layer layer) const;
    int pick() const { return m_pick; }
    void setTooltipProvider(std::function<QString(int pair)> provider);

    // The pair drawn nearest to `viewPos` (viewport coordinates), feasible and measured first,
    // or -1; where a pair is drawn (a null point when it is not on the chart).
    int pairAt(const QPoint &viewPos) const;
    QPoint viewPosOf(int pair) const;

    // PNG or SVG by the file's suffix, at the size of the view.
    bool exportTo(const QString &path, QString *error = nullptr);

protected:
    bool viewportEvent(QEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void applyTheme();
    void updateMapping();
    void updateAxes();
    void setHovered(const ChartPoint *point, const QPoint &viewPos);
    const ChartPoint *pointAt(const QPoint &viewPos) const;
    const ChartPoint *findPair(int pair) const;
    PointCloudItem *layer(Layer layer) const { return m_layers[size_t(layer)]; }

    QChart *m_chart;
    QValueAxis *m_axisX;
    QValueAxis *m_axisY;
    std::array<QScatterSeries *, 4> m_legend;
    QScatterSeries *m_pickLegend;
    std::array<PointCloudItem *, 4> m_layers;
    ChartOverlayItem *m_overlay;
    std::function<QString(int)> m_tooltip;
    int m_pick = -1;
    int m_hovered = -1;
    double m_powerBudget;
    bool m_applyingTheme = false;
};

}  // namespace ptwb::ui
