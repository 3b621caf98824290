#include "tradeoffchart.h"

#include "viewexport.h"

#include <QApplication>
#include <QGraphicsLayout>
#include <QKeyEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QRegularExpression>
#include <QRubberBand>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

namespace {

bool usable(const ChartPoint &p)
{
    return std::isfinite(p.powerW) && std::isfinite(p.time) && p.powerW >= 0 && p.time >= 0;
}

QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * t,
                            a.greenF() + (b.greenF() - a.greenF()) * t,
                            a.blueF() + (b.blueF() - a.blueF()) * t);
}

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

QString shortNumber(double v)
{
    return std::abs(v) >= 1000 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3);
}

// The colours of each layer, chosen per palette so both read well.
struct Colors
{
    QColor cloud, observed, observedOutline, observedFront, predictedFront, accent;
};

Colors colorsFor(bool dark, const QColor &base)
{
    if (dark)
        return {QColor(150, 172, 214, 64), QColor(0x4d, 0xab, 0xf7), withAlpha(base, 150),
                QColor(0xff, 0x92, 0x2b),  QColor(0x51, 0xcf, 0x66), QColor(0xfc, 0xc4, 0x19)};
    return {QColor(92, 120, 170, 60), QColor(0x1c, 0x6c, 0xd4), withAlpha(base, 170),
            QColor(0xe8, 0x59, 0x0c), QColor(0x2b, 0x8a, 0x3e), QColor(0xc2, 0x25, 0x5c)};
}

}  // namespace

TradeoffChart::TradeoffChart(QWidget *parent)
    : QChartView(new QChart, parent)
    , m_chart(chart())
    , m_axisX(new QValueAxis(this))
    , m_axisY(new QValueAxis(this))
    , m_predictedLegend(new QScatterSeries(this))
    , m_observedLegend(new QScatterSeries(this))
    , m_observedFront(new QLineSeries(this))
    , m_predictedFront(new QLineSeries(this))
    , m_selectedLegend(new QScatterSeries(this))
    , m_powerBudget(std::nan(""))
    , m_timeBudget(std::nan(""))
{
    setObjectName(QStringLiteral("tradeoffChart"));
    setFrameShape(QFrame::NoFrame);
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::NoRubberBand);
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    viewport()->setCursor(Qt::CrossCursor);
    setToolTip(tr("Hover a point for its numbers; click to select it.\n"
                  "Wheel: zoom around the cursor · drag: pan · Shift+drag: zoom to a rectangle\n"
                  "+ / −: zoom · 0 or Home: show everything · click a legend entry to hide or "
                  "show that layer"));

    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setBackgroundRoundness(0);
    m_chart->setMargins(QMargins(4, 8, 16, 4));
    m_chart->layout()->setContentsMargins(0, 0, 0, 0);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);

    m_axisX->setTitleText(tr("Power (W)"));
    m_axisY->setTitleText(tr("Time per minibatch (ms)"));
    for (QValueAxis *axis : {m_axisX, m_axisY}) {
        axis->setTickType(QValueAxis::TicksDynamic);
        axis->setTickAnchor(0);
    }
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);

    m_predictedLegend->setName(tr("Predicted modes"));
    m_observedLegend->setName(tr("Profiled modes"));
    m_observedFront->setName(tr("Observed front"));
    m_predictedFront->setName(tr("Predicted front"));
    m_selectedLegend->setName(tr("Selected"));
    const QList<QXYSeries *> series {m_predictedLegend, m_observedLegend, m_observedFront,
                                     m_predictedFront, m_selectedLegend};
    for (QXYSeries *s : series) {
        m_chart->addSeries(s);
        s->attachAxis(m_axisX);
        s->attachAxis(m_axisY);
    }

    // Series items sit at z 4 among the chart's children (axes 3, legend 5): the clouds go
    // under the front lines, the overlay above them and under the legend.
    m_predicted = new PointCloudItem(m_chart);
    m_predicted->setZValue(3.5);
    m_observed = new PointCloudItem(m_chart);
    m_observed->setZValue(3.6);
    m_overlay = new ChartOverlayItem(m_chart);
    m_overlay->setZValue(4.5);

    for (int i = 0; i < int(m_layerVisible.size()); ++i) {
        const auto layer = Layer(i);
        if (QLegendMarker *marker = legendMarker(layer)) {
            connect(marker, &QLegendMarker::clicked, this,
                    [this, layer] { setLayerVisible(layer, !isLayerVisible(layer)); });
        }
    }
    connect(m_chart, &QChart::plotAreaChanged, this, &TradeoffChart::updateMapping);
    connect(m_axisX, &QValueAxis::rangeChanged, this, &TradeoffChart::updateMapping);
    connect(m_axisY, &QValueAxis::rangeChanged, this, &TradeoffChart::updateMapping);

    applyTheme();
    updateHomeRange();
    updateBudgetLabels();
}

TradeoffChart::~TradeoffChart() = default;

// --- data ---------------------------------------------------------------------------------------

void TradeoffChart::setPredicted(const QVector<ChartPoint> &points)
{
    m_predicted->setPoints(points);
    updateHomeRange();
    updateSelection();
}

void TradeoffChart::setObserved(const QVector<ChartPoint> &points)
{
    m_observed->setPoints(points);
    updateHomeRange();
    updateSelection();
}

void TradeoffChart::setFronts(const QVector<ChartPoint> &observedFront,
                              const QVector<ChartPoint> &predictedFront)
{
    const auto line = [](const QVector<ChartPoint> &front) {
        QVector<ChartPoint> kept;
        std::copy_if(front.cbegin(), front.cend(), std::back_inserter(kept), usable);
        std::sort(kept.begin(), kept.end(),
                  [](const ChartPoint &a, const ChartPoint &b) { return a.powerW < b.powerW; });
        QList<QPointF> out;
        out.reserve(kept.size());
        for (const ChartPoint &p : kept)
            out.append(QPointF(p.powerW, p.time));
        return out;
    };
    m_observedFront->replace(line(observedFront));
    m_predictedFront->replace(line(predictedFront));
    updateHomeRange();
}

void TradeoffChart::setSelected(int mode)
{
    m_selectedMode = mode;
    updateSelection();
}

void TradeoffChart::setBudgets(double powerW, double time)
{
    m_powerBudget = powerW;
    m_timeBudget = time;
    updateBudgetLabels();
}

void TradeoffChart::setTimeAxisTitle(const QString &title)
{
    m_axisY->setTitleText(title);
    updateBudgetLabels();
}

void TradeoffChart::setPowerAxisTitle(const QString &title)
{
    m_axisX->setTitleText(title);
}

void TradeoffChart::setTooltipProvider(std::function<QString(int)> provider)
{
    m_tooltip = std::move(provider);
}

const ChartPoint *TradeoffChart::findMode(int mode) const
{
    if (mode < 0)
        return nullptr;
    if (const int i = m_observed->indexOfMode(mode); i >= 0)
        return &m_observed->points()[i];
    if (const int i = m_predicted->indexOfMode(mode); i >= 0)
        return &m_predicted->points()[i];
    return nullptr;
}

QString TradeoffChart::tooltipText(int mode) const
{
    if (m_tooltip)
        return m_tooltip(mode);
    const ChartPoint *p = findMode(mode);
    return p ? tr("Mode %1\n%2 W · %3").arg(mode).arg(shortNumber(p->powerW), shortNumber(p->time))
             : QString();
}

void TradeoffChart::updateSelection()
{
    const ChartPoint *p = findMode(m_selectedMode);
    m_overlay->setSelection(p != nullptr, p ? QPointF(p->powerW, p->time) : QPointF());
}

void TradeoffChart::updateBudgetLabels()
{
    // The time unit comes from the axis title: "Time per epoch (s)" -> "s".
    static const QRegularExpression unitPattern(QStringLiteral("\\(([^()]+)\\)\\s*$"));
    const QString unit = unitPattern.match(m_axisY->titleText()).captured(1);
    m_overlay->setBudgets(m_powerBudget, m_timeBudget,
                          tr("%1 W budget").arg(shortNumber(m_powerBudget)),
                          tr("%1 %2 budget").arg(shortNumber(m_timeBudget), unit).simplified());
}

// --- layers and legend --------------------------------------------------------------------------

QXYSeries *TradeoffChart::seriesOf(Layer layer) const
{
    switch (layer) {
    case Layer::Predicted:
        return m_predictedLegend;
    case Layer::Observed:
        return m_observedLegend;
    case Layer::ObservedFront:
        return m_observedFront;
    case Layer::PredictedFront:
        return m_predictedFront;
    case Layer::Selected:
        return m_selectedLegend;
    }
    return nullptr;
}

QLegendMarker *TradeoffChart::legendMarker(Layer layer) const
{
    return m_chart->legend()->markers(seriesOf(layer)).value(0);
}

bool TradeoffChart::isLayerVisible(Layer layer) const
{
    return m_layerVisible[size_t(layer)];
}

void TradeoffChart::setLayerVisible(Layer layer, bool visible)
{
    if (isLayerVisible(layer) == visible)
        return;
    m_layerVisible[size_t(layer)] = visible;
    switch (layer) {
    case Layer::Predicted:
        m_predicted->setVisible(visible);
        break;
    case Layer::Observed:
        m_observed->setVisible(visible);
        break;
    case Layer::ObservedFront:
        m_observedFront->setVisible(visible);
        break;
    case Layer::PredictedFront:
        m_predictedFront->setVisible(visible);
        break;
    case Layer::Selected:
        m_overlay->setSelectionVisible(visible);
        break;
    }
    styleLegendMarker(layer);
    Q_EMIT layerVisibilityChanged(layer, visible);
}

void TradeoffChart::styleLegendMarker(Layer layer)
{
    // A hidden layer stays listed, dimmed: its series (hidden, or only a legend entry) and its
    // marker get a faded pen and brush (a line's marker is drawn with the series' pen).
    const size_t i = size_t(layer);
    const bool on = isLayerVisible(layer);
    const auto fade = [on](QColor c) {
        if (!on)
            c.setAlphaF(c.alphaF() * 0.25);
        return c;
    };
    QXYSeries *series = seriesOf(layer);
    QPen pen = m_legendPen[i];
    pen.setColor(fade(pen.color()));
    series->setPen(pen);
    QBrush brush = m_legendBrush[i];
    brush.setColor(fade(brush.color()));
    if (qobject_cast<QScatterSeries *>(series))
        series->setBrush(brush);
    if (QLegendMarker *marker = legendMarker(layer)) {
        marker->setPen(pen);
        marker->setBrush(brush);
        marker->setVisible(true);  // hiding a series hides its marker too
        const QColor text = palette().color(QPalette::WindowText);
        marker->setLabelBrush(on ? text : withAlpha(text, 100));
    }
}

void TradeoffChart::applyTheme()
{
    m_applyingTheme = true;
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Window).lightness() < 128;
    const QColor window = pal.color(QPalette::Window);
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::WindowText);
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    // The theme gives fonts and defaults; the colours follow the window so the chart sits in it.
    m_chart->setBackgroundBrush(window);
    m_chart->setBackgroundPen(Qt::NoPen);
    m_chart->setPlotAreaBackgroundVisible(true);
    m_chart->setPlotAreaBackgroundBrush(base);
    m_chart->setPlotAreaBackgroundPen(QPen(mix(base, text, 0.3), 1));
    m_chart->legend()->setLabelColor(text);
    for (QValueAxis *axis : {m_axisX, m_axisY}) {
        axis->setLabelsBrush(text);
        axis->setTitleBrush(text);
        axis->setLinePen(QPen(mix(base, text, 0.3), 1));
        axis->setGridLinePen(QPen(mix(base, text, dark ? 0.16 : 0.11), 1));
        QFont title = axis->titleFont();
        title.setBold(false);
        title.setPointSizeF(font().pointSizeF());
        axis->setTitleFont(title);
        axis->setLabelsFont(font());
    }
    m_chart->legend()->setFont(font());

    const Colors c = colorsFor(dark, base);
    m_predicted->setStyle({c.cloud, QColor(), 4.5, 0});
    m_observed->setStyle({c.observed, c.observedOutline, 6.5, 0.8});
    m_overlay->setColors(c.accent, withAlpha(text, 150), base);

    m_predictedLegend->setColor(withAlpha(c.cloud, 150));
    m_predictedLegend->setBorderColor(withAlpha(c.cloud, 150));
    m_observedLegend->setColor(c.observed);
    m_observedLegend->setBorderColor(c.observed);
    m_observedFront->setPen(QPen(c.observedFront, 2.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    m_predictedFront->setPen(QPen(c.predictedFront, 2.5, Qt::DashLine, Qt::FlatCap, Qt::RoundJoin));
    m_selectedLegend->setColor(withAlpha(c.accent, 70));
    m_selectedLegend->setPen(QPen(c.accent, 2.5));
    for (int i = 0; i < int(m_layerVisible.size()); ++i) {
        const QXYSeries *series = seriesOf(Layer(i));
        m_legendPen[size_t(i)] = series->pen();
        m_legendBrush[size_t(i)] = qobject_cast<const QScatterSeries *>(series)
            ? series->brush()
            : QBrush(series->pen().color());
        styleLegendMarker(Layer(i));
    }
    m_applyingTheme = false;
}

void TradeoffChart::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) &&
        !m_applyingTheme)
        applyTheme();
}

// --- export -------------------------------------------------------------------------------------

bool TradeoffChart::exportTo(const QString &path, QString *error)
{
    m_overlay->setHover(false, QPointF());  // the hover ring is not part of the picture
    return ViewExport::writeChartView(this, path, tr("Power and time of each mode"), error);
}

}  // namespace ptwb::ui
