#pragma once

#include "batch/batchchoice.h"

#include <QChartView>

#include <optional>

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace ptwb::ui {

// One training batch size's front: the modes no other mode of that batch beats on both peak
// power and the objective (time or energy to accuracy), by increasing peak power.
struct BatchFront
{
    int batch = 0;
    QVector<BatchPick> points;
};

// The chart of Explore's batch size mode: per batch size its front of time (or energy) to the
// target accuracy against peak power, one colour and legend entry each ("batch 16"); the cap on
// the peak as a vertical dashed line and the pick as a larger ringed marker. Hover a point for
// its mode, batch, hours, kJ and peak power. Real Qt Charts series: the fronts hold a few dozen
// points each.
class BatchChart : public QChartView
{
    Q_OBJECT

public:
    explicit BatchChart(QWidget *parent = nullptr);

    // Replaces every front, the cap line (NaN hides it) and the pick (none: no marker).
    void setPicture(const QVector<BatchFront> &fronts, AccuracyObjective objective, double capW,
                    const std::optional<BatchPick> &pick);
    // The same in two steps: the fronts change with the space and the objective only, the cap
    // and the pick with every move of the slider (no series is rebuilt then).
    void setFronts(const QVector<BatchFront> &fronts, AccuracyObjective objective);
    void setCapAndPick(double capW, const std::optional<BatchPick> &pick);
    void clear();

    // The batch sizes drawn, one front series each, in order.
    QVector<int> batches() const;
    int frontSeriesCount() const { return int(m_fronts.size()); }
    QScatterSeries *pickSeries() const { return m_pick; }
    QLineSeries *capSeries() const { return m_cap; }
    // What hovering a drawn point shows (plain text).
    static QString hoverText(const BatchPick &point);

    // PNG or SVG by the file's suffix, at the size of the view.
    bool exportTo(const QString &path, QString *error = nullptr);

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Drawn
    {
        int batch = 0;
        QLineSeries *line = nullptr;
        QScatterSeries *points = nullptr;
        QVector<BatchPick> picks;
    };

    double yOf(const BatchPick &pick) const;
    static void colourFront(const Drawn &front, int index);
    void applyTheme();
    void showHover(const Drawn &front, const QPointF &point, bool state);

    QChart *m_chart;
    QValueAxis *m_axisX;
    QValueAxis *m_axisY;
    QLineSeries *m_cap;
    QScatterSeries *m_pick;
    QVector<Drawn> m_fronts;
    AccuracyObjective m_objective = AccuracyObjective::Time;
    double m_frontsX0 = 0;  // the fronts' span of peak power
    double m_frontsX1 = 60;
    double m_frontsCeiling = 1;  // the first view's top (valueCeiling)
    bool m_applyingTheme = false;
};

}  // namespace ptwb::ui
