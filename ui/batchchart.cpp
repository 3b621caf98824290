#include "batchchart.h"

#include "batchcard.h"
#include "chartstyle.h"
#include "viewexport.h"

#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

namespace {

// Colour-blind-safe and distinct on both palettes (Okabe-Ito, without black and yellow).
const QColor kBatchColors[] = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00),
                               QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
                               QColor(0x56, 0xb4, 0xe9), QColor(0xd5, 0x5e, 0x00)};
constexpr qreal kPointSize = 5;
constexpr qreal kPickSize = 17;

// The first view stops at two and a half times the fronts' median: the slowest modes (a few
// cores at the lowest clocks) take ten times longer than the rest and would squash the part of
// the fronts where the choice is made. The pick is always inside.
double valueCeiling(QVector<double> values)
{
    if (values.isEmpty())
        return 1;
    const auto middle = values.begin() + values.size() / 2;
    std::nth_element(values.begin(), middle, values.end());
    return std::min(*std::max_element(values.begin(), values.end()) * 1.05, *middle * 2.5);
}

}  // namespace

BatchChart::BatchChart(QWidget *parent)
    : QChartView(new QChart, parent)
    , m_chart(chart())
    , m_axisX(new QValueAxis(this))
    , m_axisY(new QValueAxis(this))
    , m_cap(new QLineSeries(this))
    , m_pick(new QScatterSeries(this))
{
    setObjectName(QStringLiteral("batchChart"));
    setFrameShape(QFrame::NoFrame);
    setRenderHint(QPainter::Antialiasing);
    setToolTip(tr("Per training batch size, the modes no other mode of that batch beats on both "
                  "peak power and time (energy) to the target accuracy. Hover a point for its "
                  "numbers."));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    m_axisX->setTitleText(tr("Peak power (W)"));
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);
    for (QXYSeries *s : std::initializer_list<QXYSeries *> {m_cap, m_pick}) {
        m_chart->addSeries(s);
        s->attachAxis(m_axisX);
        s->attachAxis(m_axisY);
    }
    m_pick->setMarkerSize(kPickSize);
    m_pick->setName(tr("Pick"));
    applyTheme();
    clear();
}

double BatchChart::yOf(const BatchPick &pick) const
{
    return m_objective == AccuracyObjective::Time ? pick.seconds / 3600 : pick.joules / 1e3;
}

void BatchChart::setFronts(const QVector<BatchFront> &fronts, AccuracyObjective objective)
{
    m_objective = objective;
    for (const Drawn &d : std::as_const(m_fronts)) {
        m_chart->removeSeries(d.line);
        m_chart->removeSeries(d.points);
        delete d.line;
        delete d.points;
    }
    m_fronts.clear();
    m_axisY->setTitleText(objective == AccuracyObjective::Time ? tr("Time to accuracy (h)")
                                                               : tr("Energy to accuracy (kJ)"));

    double x0 = qInf(), x1 = -qInf();
    QVector<double> ys;
    int colour = 0;
    for (const BatchFront &f : fronts) {
        Drawn d;
        d.batch = f.batch;
        d.picks = f.points;
        d.line = new QLineSeries(this);
        d.points = new QScatterSeries(this);
        d.line->setName(tr("batch %1").arg(f.batch));
        colourFront(d, colour++);
        d.points->setMarkerSize(kPointSize);
        for (const BatchPick &p : f.points) {
            const QPointF at(p.peakW, yOf(p));
            d.line->append(at);
            d.points->append(at);
            x0 = std::min(x0, p.peakW);
            x1 = std::max(x1, p.peakW);
            ys.append(at.y());
        }
        for (QXYSeries *s : std::initializer_list<QXYSeries *> {d.line, d.points}) {
            m_chart->addSeries(s);
            s->attachAxis(m_axisX);
            s->attachAxis(m_axisY);
        }
        // One legend entry per batch: the line's.
        for (QLegendMarker *marker : m_chart->legend()->markers(d.points))
            marker->setVisible(false);
        const int index = int(m_fronts.size());
        connect(d.points, &QScatterSeries::hovered, this,
                [this, index](const QPointF &point, bool state) {
                    if (index < m_fronts.size())
                        showHover(m_fronts[index], point, state);
                });
        m_fronts.append(d);
    }
    // Keep the pick and the cap above the fronts (series are drawn in the order added).
    for (QXYSeries *s : std::initializer_list<QXYSeries *> {m_cap, m_pick}) {
        m_chart->removeSeries(s);
        m_chart->addSeries(s);
        s->attachAxis(m_axisX);
        s->attachAxis(m_axisY);
    }

    if (!std::isfinite(x0)) {
        x0 = 0;
        x1 = 60;
    }
    m_frontsX0 = x0;
    m_frontsX1 = x1;
    m_frontsCeiling = valueCeiling(ys);
}

void BatchChart::setCapAndPick(double capW, const std::optional<BatchPick> &pick)
{
    double x0 = m_frontsX0, x1 = m_frontsX1;
    if (std::isfinite(capW)) {
        x0 = std::min(x0, capW);
        x1 = std::max(x1, capW);
    }
    double yMax = m_frontsCeiling;
    if (pick)
        yMax = std::max(yMax, yOf(*pick) * 1.3);
    setRoundTicks(m_axisX, std::max(0.0, x0 - 1), x1 + 1);
    setRoundTicks(m_axisY, 0, yMax);

    m_cap->clear();
    m_cap->setVisible(std::isfinite(capW));
    if (std::isfinite(capW)) {
        m_cap->setName(tr("cap %1 W").arg(capW, 0, 'f', 1));
        m_cap->append(capW, m_axisY->min());
        m_cap->append(capW, m_axisY->max());
    }
    m_pick->clear();
    if (pick) {
        m_pick->append(pick->peakW, yOf(*pick));
        m_pick->setName(tr("pick: batch %1").arg(pick->batch));
    }
    for (QLegendMarker *marker : m_chart->legend()->markers(m_pick))
        marker->setVisible(pick.has_value());
    for (QLegendMarker *marker : m_chart->legend()->markers(m_cap))
        marker->setVisible(std::isfinite(capW));
}

void BatchChart::setPicture(const QVector<BatchFront> &fronts, AccuracyObjective objective,
                            double capW, const std::optional<BatchPick> &pick)
{
    setFronts(fronts, objective);
    setCapAndPick(capW, pick);
}

void BatchChart::clear()
{
    setPicture({}, m_objective, qQNaN(), std::nullopt);
}

QVector<int> BatchChart::batches() const
{
    QVector<int> out;
    for (const Drawn &d : m_fronts)
        out.append(d.batch);
    return out;
}

QString BatchChart::hoverText(const BatchPick &p)
{
    return tr("%1 (%2)\nbatch %3\n%4 h, %5 kJ to accuracy\npeak %6 W")
        .arg(p.mode.toShort(), p.mode.toCanonical())
        .arg(p.batch)
        .arg(p.seconds / 3600, 0, 'f', 2)
        .arg(p.joules / 1e3, 0, 'f', 1)
        .arg(p.peakW, 0, 'f', 1);
}

void BatchChart::showHover(const Drawn &front, const QPointF &point, bool state)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    for (const BatchPick &p : front.picks) {
        if (qFuzzyCompare(p.peakW, point.x()) && qFuzzyCompare(yOf(p), point.y())) {
            // Qt::mightBeRichText would take a mode's text as plain anyway; the newlines keep
            // it plain text.
            QToolTip::showText(QCursor::pos(), hoverText(p), viewport());
            return;
        }
    }
}

void BatchChart::colourFront(const Drawn &front, int index)
{
    const QColor c = kBatchColors[index % std::size(kBatchColors)];
    front.line->setPen(QPen(c, 2));
    front.points->setColor(c);
    front.points->setBorderColor(c);
}

void BatchChart::applyTheme()
{
    m_applyingTheme = true;
    styleChart(m_chart, this);
    m_chart->setMargins(QMargins(4, 8, 16, 4));
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Window).lightness() < 128;
    const QColor text = pal.color(QPalette::WindowText);
    QColor faint = text;
    faint.setAlpha(dark ? 40 : 28);
    for (QValueAxis *axis : {m_axisX, m_axisY}) {
        axis->setLabelsBrush(text);
        axis->setTitleBrush(text);
        axis->setGridLinePen(QPen(faint, 1));
        QFont title = axis->titleFont();
        title.setBold(false);
        title.setPointSizeF(font().pointSizeF());
        axis->setTitleFont(title);
        axis->setLabelsFont(font());
    }
    const QColor accent = dark ? QColor(0xfc, 0xc4, 0x19) : QColor(0xc2, 0x25, 0x5c);
    QColor ring = accent;
    ring.setAlpha(60);
    m_pick->setColor(ring);
    m_pick->setBorderColor(accent);
    m_pick->setPen(QPen(accent, 3));
    QColor capColour = text;
    capColour.setAlpha(170);
    m_cap->setPen(QPen(capColour, 1.5, Qt::DashLine));
    // setTheme recoloured every series: the fronts get their own colours back.
    for (int i = 0; i < m_fronts.size(); ++i)
        colourFront(m_fronts[i], i);
    m_applyingTheme = false;
}

void BatchChart::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) &&
        !m_applyingTheme)
        applyTheme();
}

bool BatchChart::exportTo(const QString &path, QString *error)
{
    QToolTip::hideText();
    return ViewExport::writeChartView(
        this, path, tr("Time to accuracy and peak power of each training batch size"), error);
}

}  // namespace ptwb::ui
