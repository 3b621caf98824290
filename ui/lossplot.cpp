#include "lossplot.h"

#include "chartstyle.h"

#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <cmath>

namespace ptwb::ui {

namespace {

// Losses are mean squared errors of standardised targets: positive, but a perfect closed-form
// fit can report 0, which a log axis cannot show.
constexpr double kSmallestLoss = 1e-6;

QColor faded(QColor color, int member)
{
    color.setAlphaF(std::max(0.35, 1.0 - 0.25 * member));
    return color;
}

}  // namespace

LossPlot::LossPlot(const QString &title, QWidget *parent)
    : QChartView(parent)
    , m_title(title)
    , m_axisX(new QValueAxis(this))
    , m_axisY(new QLogValueAxis(this))
{
    auto *chart = new QChart;
    styleChart(chart, this);
    chart->setTitle(title);
    m_axisX->setTitleText(tr("epoch"));
    m_axisX->setLabelFormat(QStringLiteral("%d"));
    m_axisY->setTitleText(tr("loss (log)"));
    m_axisY->setLabelFormat(QStringLiteral("%g"));
    m_axisY->setBase(10);
    m_axisY->setMinorTickCount(8);
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    chart->legend()->setAlignment(Qt::AlignBottom);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(280, 200);
    setToolTip(tr("Training (solid) and validation (dashed) loss per epoch, one pair of curves "
                  "per ensemble member"));
    clear();
}

void LossPlot::clear()
{
    for (QLineSeries *series : m_training + m_validation) {
        chart()->removeSeries(series);
        delete series;
    }
    m_training.clear();
    m_validation.clear();
    m_points = 0;
    m_closedForm = false;
    m_axisX->setTitleText(tr("epoch"));
    m_axisX->setTickCount(5);
    m_maxEpoch = 1;
    m_minLoss = m_maxLoss = 0;
    m_axisX->setRange(0, 10);
    m_axisY->setRange(1e-3, 1);
    chart()->setTitle(m_title);
}

void LossPlot::setPlaceholder(const QString &text)
{
    chart()->setTitle(text.isEmpty() ? m_title : QStringLiteral("%1 — %2").arg(m_title, text));
}

void LossPlot::ensureMember(int member)
{
    while (m_training.size() <= member) {
        const int index = int(m_training.size());
        auto *training = new QLineSeries;
        auto *validation = new QLineSeries;
        training->setName(tr("training"));
        validation->setName(tr("validation"));
        QPen pen(faded(chartColors::training, index), 2);
        training->setPen(pen);
        pen.setColor(faded(chartColors::validation, index));
        pen.setStyle(Qt::DashLine);
        validation->setPen(pen);
        for (QLineSeries *series : {training, validation}) {
            chart()->addSeries(series);
            series->attachAxis(m_axisX);
            series->attachAxis(m_axisY);
        }
        // One legend entry per kind of curve, not per member.
        if (index > 0) {
            for (QLegendMarker *marker : chart()->legend()->markers(training))
                marker->setVisible(false);
            for (QLegendMarker *marker : chart()->legend()->markers(validation))
                marker->setVisible(false);
        }
        m_training.append(training);
        m_validation.append(validation);
    }
}

void LossPlot::addEpoch(int member, int epoch, int epochs, double trainingLoss,
                        double validationLoss)
{
    if (member < 0 || !std::isfinite(trainingLoss) || !std::isfinite(validationLoss))
        return;
    if (m_points == 0) {
        m_closedForm = epochs <= 1;
        m_axisX->setTitleText(m_closedForm ? tr("ensemble member (closed-form fit)") : tr("epoch"));
    }
    // In closed form every member is one point on one pair of series.
    const int series = m_closedForm ? 0 : member;
    const double x = m_closedForm ? member + 1 : epoch;
    ensureMember(series);
    m_training[series]->setPointsVisible(m_closedForm);
    m_validation[series]->setPointsVisible(m_closedForm);
    trainingLoss = std::max(trainingLoss, kSmallestLoss);
    validationLoss = std::max(validationLoss, kSmallestLoss);
    m_training[series]->append(x, trainingLoss);
    m_validation[series]->append(x, validationLoss);
    epoch = int(x);
    const double low = std::min(trainingLoss, validationLoss);
    const double high = std::max(trainingLoss, validationLoss);
    m_minLoss = m_points == 0 ? low : std::min(m_minLoss, low);
    m_maxLoss = m_points == 0 ? high : std::max(m_maxLoss, high);
    m_maxEpoch = std::max(m_maxEpoch, epoch);
    m_points += 2;
    const int members = m_closedForm ? m_maxEpoch : int(m_training.size());
    chart()->setTitle(members > 1 ? tr("%1 (%2 ensemble members)").arg(m_title).arg(members)
                                  : m_title);
    updateRanges();
}

void LossPlot::updateRanges()
{
    if (m_closedForm) {
        m_axisX->setRange(0, m_maxEpoch + 1);
        m_axisX->setTickCount(m_maxEpoch + 2);
    } else {
        m_axisX->setRange(m_maxEpoch > 1 ? 1 : 0, std::max(2, m_maxEpoch));
        m_axisX->applyNiceNumbers();
    }
    // Whole decades, so the log axis labels stay readable.
    const double low = std::pow(10.0, std::floor(std::log10(m_minLoss)));
    double high = std::pow(10.0, std::ceil(std::log10(m_maxLoss)));
    if (high <= low)
        high = low * 10;
    // A hair wider, so rounding does not drop the end labels.
    m_axisY->setRange(low * 0.999, high * 1.001);
}

}  // namespace ptwb::ui
