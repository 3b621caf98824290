#include "concurrentchart.h"

#include "chartstyle.h"
#include "viewexport.h"

#include <QGraphicsLayout>
#include <QHelpEvent>
#include <QLegend>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

namespace {

constexpr qreal kPickRadius = 7;

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

// Colours per palette: feasible pairs in the trade-off chart's blue, infeasible ones grey.
struct Colors
{
    QColor feasible, feasibleLight, infeasible, infeasibleLight, accent;
};

Colors colorsFor(bool dark)
{
    if (dark)
        return {QColor(0x4d, 0xab, 0xf7), QColor(0x4d, 0xab, 0xf7, 130), QColor(120, 120, 120),
                QColor(120, 120, 120, 70), QColor(0xfc, 0xc4, 0x19)};
    return {QColor(0x1c, 0x6c, 0xd4), QColor(0x1c, 0x6c, 0xd4, 120), QColor(178, 178, 178),
            QColor(178, 178, 178, 80), QColor(0xc2, 0x25, 0x5c)};
}

}  // namespace

ConcurrentChart::ConcurrentChart(QWidget *parent)
    : QChartView(new QChart, parent)
    , m_chart(chart())
    , m_axisX(new QValueAxis(this))
    , m_axisY(new QValueAxis(this))
    , m_pickLegend(new QScatterSeries(this))
    , m_powerBudget(qQNaN())
{
    setObjectName(QStringLiteral("concurrentChart"));
    setFrameShape(QFrame::NoFrame);
    setRenderHint(QPainter::Antialiasing);
    viewport()->setMouseTracking(true);
    viewport()->setCursor(Qt::CrossCursor);
    setToolTip(tr("Every power mode with every inference batch size: its power and the training "
                  "throughput left between inference batches. Hover a point for its numbers."));

    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setBackgroundRoundness(0);
    m_chart->setMargins(QMargins(4, 8, 16, 4));
    m_chart->layout()->setContentsMargins(0, 0, 0, 0);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    m_axisX->setTitleText(tr("Power (W)"));
    m_axisY->setTitleText(tr("Training throughput (minibatches/s)"));
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);

    const QStringList names {tr("Feasible, measured"), tr("Feasible, predicted"),
                             tr("Infeasible, measured"), tr("Infeasible, predicted")};
    for (size_t i = 0; i < m_legend.size(); ++i) {
        m_legend[i] = new QScatterSeries(this);
        m_legend[i]->setName(names[int(i)]);
    }
    m_pickLegend->setName(tr("Pick"));
    QList<QScatterSeries *> series(m_legend.begin(), m_legend.end());
    series.append(m_pickLegend);
    for (QScatterSeries *s : series) {
        s->setMarkerSize(9);
        m_chart->addSeries(s);
        s->attachAxis(m_axisX);
        s->attachAxis(m_axisY);
    }
    // Drawn bottom to top: infeasible predicted, infeasible measured, feasible predicted,
    // feasible measured; the overlay (budget line, pick) above, under the legend (z 5).
    const std::array<qreal, 4> z {3.8, 3.7, 3.6, 3.5};
    for (size_t i = 0; i < m_layers.size(); ++i) {
        m_layers[i] = new PointCloudItem(m_chart);
        m_layers[i]->setZValue(z[i]);
    }
    m_overlay = new ChartOverlayItem(m_chart);
    m_overlay->setZValue(4.5);

    connect(m_chart, &QChart::plotAreaChanged, this, &ConcurrentChart::updateMapping);
    connect(m_axisX, &QValueAxis::rangeChanged, this, &ConcurrentChart::updateMapping);
    connect(m_axisY, &QValueAxis::rangeChanged, this, &ConcurrentChart::updateMapping);
    applyTheme();
    updateAxes();
}

ConcurrentChart::~ConcurrentChart() = default;

void ConcurrentChart::setPicture(const ConcurrentPicture &picture, double powerBudgetW)
{
    layer(Layer::FeasibleMeasured)->setPoints(picture.feasibleMeasured);
    layer(Layer::FeasiblePredicted)->setPoints(picture.feasiblePredicted);
    layer(Layer::InfeasibleMeasured)->setPoints(picture.infeasibleMeasured);
    layer(Layer::InfeasiblePredicted)->setPoints(picture.infeasiblePredicted);
    m_pick = picture.pick.pair;
    m_powerBudget = powerBudgetW;
    updateAxes();
    // Where the pick is drawn, from its outcome: looking it up would index every layer.
    const ConcurrentOutcome &o = picture.pick.outcome;
    m_overlay->setSelection(m_pick >= 0, QPointF(o.powerW, o.throughput));
    m_overlay->setBudgets(m_powerBudget, qQNaN(), tr("%1 W budget").arg(m_powerBudget, 0, 'f', 1),
                          QString());
    if (m_hovered >= 0)
        setHovered(nullptr, QPoint());
}

void ConcurrentChart::clear()
{
    setPicture(ConcurrentPicture(), qQNaN());
}

const QVector<ChartPoint> &ConcurrentChart::points(Layer which) const
{
    return layer(which)->points();
}

void ConcurrentChart::setTooltipProvider(std::function<QString(int)> provider)
{
    m_tooltip = std::move(provider);
}

const ChartPoint *ConcurrentChart::findPair(int pair) const
{
    if (pair < 0)
        return nullptr;
    for (const PointCloudItem *item : m_layers) {
        if (const int i = item->indexOfMode(pair); i >= 0)
            return &item->points()[i];
    }
    return nullptr;
}

// The axes span every pair and the budget line, from zero throughput up.
void ConcurrentChart::updateAxes()
{
    double x0 = qInf(), x1 = -qInf(), y1 = 0;
    for (const PointCloudItem *item : m_layers) {
        if (item->points().isEmpty())
            continue;
        const QRectF b = item->valueBounds();
        x0 = std::min(x0, b.left());
        x1 = std::max(x1, b.right());
        y1 = std::max(y1, b.bottom());
    }
    if (std::isfinite(m_powerBudget) && std::isfinite(x0)) {
        x0 = std::min(x0, m_powerBudget);
        x1 = std::max(x1, m_powerBudget);
    }
    if (!std::isfinite(x0)) {
        x0 = 0;
        x1 = 50;
    }
    setRoundTicks(m_axisX, std::max(0.0, x0 - 0.5), x1 + 0.5);
    setRoundTicks(m_axisY, 0, y1 > 0 ? y1 * 1.05 : 1);
    updateMapping();
}

void ConcurrentChart::updateMapping()
{
    PlotMapping m;
    m.plotArea = m_chart->plotArea();
    m.xMin = m_axisX->min();
    m.xMax = m_axisX->max();
    m.yMin = m_axisY->min();
    m.yMax = m_axisY->max();
    for (PointCloudItem *item : m_layers)
        item->setMapping(m);
    m_overlay->setMapping(m);
}

const ChartPoint *ConcurrentChart::pointAt(const QPoint &viewPos) const
{
    const QPointF pos = m_chart->mapFromScene(mapToScene(viewPos));
    for (const PointCloudItem *item : m_layers) {
        const int i = item->nearest(pos, kPickRadius);
        if (i >= 0)
            return &item->points()[i];
    }
    return nullptr;
}

int ConcurrentChart::pairAt(const QPoint &viewPos) const
{
    const ChartPoint *p = pointAt(viewPos);
    return p ? p->mode : -1;
}

QPoint ConcurrentChart::viewPosOf(int pair) const
{
    const ChartPoint *p = findPair(pair);
    if (!p || m_axisX->max() <= m_axisX->min())
        return QPoint();
    PlotMapping m;
    m.plotArea = m_chart->plotArea();
    m.xMin = m_axisX->min();
    m.xMax = m_axisX->max();
    m.yMin = m_axisY->min();
    m.yMax = m_axisY->max();
    if (!m.isValid())
        return QPoint();
    return mapFromScene(m_chart->mapToScene(m.toScene(p->powerW, p->time)));
}

void ConcurrentChart::setHovered(const ChartPoint *point, const QPoint &viewPos)
{
    const int pair = point ? point->mode : -1;
    if (pair == m_hovered)
        return;
    m_hovered = pair;
    m_overlay->setHover(point != nullptr, point ? QPointF(point->powerW, point->time) : QPointF());
    if (point && m_tooltip)
        QToolTip::showText(viewport()->mapToGlobal(viewPos), m_tooltip(pair), viewport());
    else
        QToolTip::hideText();
}

void ConcurrentChart::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    setHovered(pointAt(pos), pos);
    QChartView::mouseMoveEvent(event);
}

bool ConcurrentChart::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::Leave) {
        setHovered(nullptr, QPoint());
    } else if (event->type() == QEvent::ToolTip) {
        // A hovered pair shows its own tooltip; elsewhere, what the chart shows.
        const auto *help = static_cast<QHelpEvent *>(event);
        if (m_hovered < 0)
            QToolTip::showText(help->globalPos(), toolTip(), viewport(),
                               QRect(help->pos() - QPoint(12, 12), QSize(24, 24)));
        return true;
    }
    return QChartView::viewportEvent(event);
}

void ConcurrentChart::applyTheme()
{
    m_applyingTheme = true;
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Window).lightness() < 128;
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::WindowText);
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setBackgroundBrush(pal.color(QPalette::Window));
    m_chart->setBackgroundPen(Qt::NoPen);
    m_chart->setPlotAreaBackgroundVisible(true);
    m_chart->setPlotAreaBackgroundBrush(base);
    m_chart->setPlotAreaBackgroundPen(QPen(withAlpha(text, 80), 1));
    m_chart->legend()->setLabelColor(text);
    m_chart->legend()->setFont(font());
    for (QValueAxis *axis : {m_axisX, m_axisY}) {
        axis->setLabelsBrush(text);
        axis->setTitleBrush(text);
        axis->setLinePen(QPen(withAlpha(text, 80), 1));
        axis->setGridLinePen(QPen(withAlpha(text, dark ? 40 : 28), 1));
        QFont title = axis->titleFont();
        title.setBold(false);
        title.setPointSizeF(font().pointSizeF());
        axis->setTitleFont(title);
        axis->setLabelsFont(font());
    }
    const Colors c = colorsFor(dark);
    const QColor outline = withAlpha(base, 170);
    layer(Layer::FeasibleMeasured)->setStyle({c.feasible, outline, 6.5, 0.8});
    layer(Layer::FeasiblePredicted)->setStyle({c.feasibleLight, QColor(), 4.5, 0});
    layer(Layer::InfeasibleMeasured)->setStyle({c.infeasible, outline, 5.5, 0.8});
    layer(Layer::InfeasiblePredicted)->setStyle({c.infeasibleLight, QColor(), 4, 0});
    m_overlay->setColors(c.accent, withAlpha(text, 150), base);
    const std::array<QColor, 4> legend {c.feasible, withAlpha(c.feasible, 140), c.infeasible,
                                        withAlpha(c.infeasible, 110)};
    for (size_t i = 0; i < m_legend.size(); ++i) {
        m_legend[i]->setColor(legend[i]);
        m_legend[i]->setBorderColor(legend[i]);
    }
    m_pickLegend->setColor(withAlpha(c.accent, 70));
    m_pickLegend->setPen(QPen(c.accent, 2.5));
    m_applyingTheme = false;
}

void ConcurrentChart::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) &&
        !m_applyingTheme)
        applyTheme();
}

bool ConcurrentChart::exportTo(const QString &path, QString *error)
{
    m_overlay->setHover(false, QPointF());  // the hover ring is not part of the picture
    return ViewExport::writeChartView(
        this, path, tr("Training throughput and power of each mode and inference batch"), error);
}

}  // namespace ptwb::ui
