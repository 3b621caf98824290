#include "chartstyle.h"

#include <QBarCategoryAxis>
#include <QChart>
#include <QFontMetrics>
#include <QGraphicsLayout>
#include <QValueAxis>
#include <QWidget>

#include <cmath>

namespace ptwb::ui {

void styleChart(QChart *chart, const QWidget *owner)
{
    const QPalette palette = owner->palette();
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundVisible(false);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setAnimationOptions(QChart::NoAnimation);
    QFont title = owner->font();
    title.setBold(true);
    chart->setTitleFont(title);
    chart->setTitleBrush(palette.color(QPalette::WindowText));
    chart->legend()->setLabelColor(palette.color(QPalette::WindowText));
    chart->legend()->setFont(owner->font());
}

void setRoundTicks(QValueAxis *axis, double low, double high)
{
    if (!(high - low > 1e-9))
        high = low + 1;
    const double raw = (high - low) / 5;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        step = factor * magnitude;
        if (step >= raw)
            break;
    }
    // As many decimals as the step has (0.25 -> 2), so no two ticks read the same.
    int decimals = 0;
    for (double scaled = step; decimals < 6 && std::fabs(scaled - std::round(scaled)) > 1e-6;
         scaled *= 10)
        ++decimals;
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
    axis->setRange(std::floor(low / step) * step, std::ceil(high / step) * step);
}

void fitCategoryLabels(QBarCategoryAxis *axis, const QStringList &categories, double plotWidth,
                       QFont font)
{
    if (categories.isEmpty())
        return;
    // Qt's room for a label: the width over the ticks (one more than the categories) less its
    // padding and the text item's margins.
    const double room = plotWidth / (categories.size() + 1) - 16;
    const QFont upright = font;
    for (; font.pointSizeF() >= 7; font.setPointSizeF(font.pointSizeF() - 0.5)) {
        const QFontMetrics metrics(font);
        int widest = 0;
        for (const QString &name : categories)
            widest = std::max(widest, metrics.horizontalAdvance(name));
        if (widest <= room) {
            axis->setLabelsAngle(0);
            axis->setLabelsFont(font);
            return;
        }
    }
    // Too narrow even at 7 pt: the names stand on end, in the full size.
    axis->setLabelsAngle(-90);
    axis->setLabelsFont(upright);
}

}  // namespace ptwb::ui
