#include "chartstyle.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QWidget>

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

}  // namespace ptwb::ui
