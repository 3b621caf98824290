#include "sparkline.h"

#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

Sparkline::Sparkline(QWidget *parent)
    : QWidget(parent)
    , m_placeholder(tr("Waiting for samples…"))
{
    setObjectName(QStringLiteral("sparkline"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setMaximumHeight(fontMetrics().height() * 14);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
}

void Sparkline::setCapacity(int samples)
{
    m_capacity = std::max(2, samples);
    if (m_values.size() > m_capacity)
        m_values.remove(0, m_values.size() - m_capacity);
    recomputeRange();
    update();
}

void Sparkline::setUnit(const QString &unit)
{
    m_unit = unit;
    update();
}

void Sparkline::setCaption(const QString &caption)
{
    m_caption = caption;
    update();
}

void Sparkline::setSampleIntervalMs(int intervalMs)
{
    m_intervalMs = std::max(0, intervalMs);
    update();
}

QString Sparkline::captionText() const
{
    if (m_intervalMs <= 0 || m_values.size() < 2)
        return m_caption;
    const int seconds = int((m_values.size() - 1) * qint64(m_intervalMs) / 1000);
    const QString span = seconds < 90
        ? tr("last %1 s").arg(seconds)
        : tr("last %1 min").arg(QString::number(seconds / 60.0, 'g', 2));
    return m_caption.isEmpty() ? span : QStringLiteral("%1 · %2").arg(m_caption, span);
}

void Sparkline::setPlaceholderText(const QString &text)
{
    m_placeholder = text;
    update();
}

void Sparkline::addSample(double value)
{
    // A value the scale cannot hold (NaN, infinite, 1e300) would make every point NaN.
    if (!std::isfinite(value) || std::abs(value) > kMaxDrawable)
        return;
    if (m_values.size() >= m_capacity)
        m_values.remove(0, m_values.size() - m_capacity + 1);
    m_values.append(value);
    recomputeRange();
    setToolTip(
        tr("Now %1, minimum %2, maximum %3 over the last %n samples", nullptr, int(m_values.size()))
            .arg(format(current()), format(m_min), format(m_max)));
    update();
}

void Sparkline::clear()
{
    m_values.clear();
    recomputeRange();
    setToolTip(QString());
    update();
}

double Sparkline::current() const
{
    return m_values.isEmpty() ? 0 : m_values.last();
}

void Sparkline::recomputeRange()
{
    if (m_values.isEmpty()) {
        m_min = m_max = 0;
        return;
    }
    const auto [low, high] = std::minmax_element(m_values.cbegin(), m_values.cend());
    m_min = *low;
    m_max = *high;
}

QString Sparkline::format(double value) const
{
    return QStringLiteral("%1 %2").arg(QString::number(value, 'f', 1), m_unit);
}

QSize Sparkline::sizeHint() const
{
    return {320, fontMetrics().height() * 9};
}

QSize Sparkline::minimumSizeHint() const
{
    return {160, fontMetrics().height() * 5};
}

void Sparkline::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette &pal = palette();
    const QRectF frame = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    painter.setPen(QPen(pal.color(QPalette::Mid), 1));
    painter.setBrush(pal.color(QPalette::Base));
    painter.drawRoundedRect(frame, 6, 6);

    // Header: the current value large on the left, the range on the right.
    const int margin = 8;
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    big.setBold(true);
    const QFontMetrics bigMetrics(big);
    const QRect header(margin, margin / 2, width() - 2 * margin, bigMetrics.height());
    QColor dim = pal.color(QPalette::Text);
    dim.setAlphaF(0.6);
    if (!m_values.isEmpty()) {
        painter.setFont(big);
        painter.setPen(pal.color(QPalette::Text));
        painter.drawText(header, Qt::AlignLeft | Qt::AlignVCenter, format(current()));
        painter.setFont(font());
        painter.setPen(dim);
        painter.drawText(header, Qt::AlignRight | Qt::AlignVCenter,
                         tr("min %1 · max %2").arg(format(m_min), format(m_max)));
    }
    int top = header.bottom() + 2;
    if (const QString text = captionText(); !text.isEmpty()) {
        painter.setFont(font());
        painter.setPen(dim);
        const QRect caption(margin, top, width() - 2 * margin, fontMetrics().height());
        painter.drawText(caption, Qt::AlignLeft | Qt::AlignVCenter, text);
        top = caption.bottom() + 4;
    }
    const QRectF plot(margin, top, width() - 2 * margin, height() - top - margin);
    if (plot.height() < 4 || plot.width() < 4)
        return;
    if (m_values.size() < 2) {
        painter.setPen(dim);
        painter.drawText(plot, Qt::AlignCenter, m_placeholder);
        return;
    }

    // A flat line still needs a range; keep 1 unit either side so noise does not look huge.
    double low = m_min;
    double high = m_max;
    if (high - low < 2) {
        const double middle = (high + low) / 2;
        low = middle - 1;
        high = middle + 1;
    }
    const double step = plot.width() / (m_values.size() - 1);
    const auto pointAt = [&](int i) {
        const double x = plot.right() - (m_values.size() - 1 - i) * step;
        const double y = plot.bottom() - (m_values.at(i) - low) / (high - low) * plot.height();
        return QPointF(x, y);
    };
    QPainterPath line;
    line.moveTo(pointAt(0));
    for (int i = 1; i < m_values.size(); ++i)
        line.lineTo(pointAt(i));

    // Faint guides at the minimum and the maximum.
    QColor guide = pal.color(QPalette::Text);
    guide.setAlphaF(0.18);
    painter.setPen(QPen(guide, 1, Qt::DashLine));
    for (const double value : {m_min, m_max}) {
        const double y = plot.bottom() - (value - low) / (high - low) * plot.height();
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    }

    const QColor accent = pal.color(QPalette::Highlight);
    QPainterPath area = line;
    area.lineTo(pointAt(int(m_values.size()) - 1).x(), plot.bottom());
    area.lineTo(pointAt(0).x(), plot.bottom());
    area.closeSubpath();
    QLinearGradient fill(plot.topLeft(), plot.bottomLeft());
    QColor strong = accent;
    strong.setAlphaF(0.35);
    QColor faint = accent;
    faint.setAlphaF(0.03);
    fill.setColorAt(0, strong);
    fill.setColorAt(1, faint);
    painter.setPen(Qt::NoPen);
    painter.setBrush(fill);
    painter.drawPath(area);

    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(accent, 1.6, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.drawPath(line);
    painter.setBrush(accent);
    painter.setPen(Qt::NoPen);
    painter.drawEllipse(pointAt(int(m_values.size()) - 1), 3, 3);
}

}  // namespace ptwb::ui
