#pragma once

#include <QColor>
#include <QStringList>

class QBarCategoryAxis;
class QChart;
class QFont;
class QValueAxis;
class QWidget;

namespace ptwb::ui {

// The small charts of the Models and Compare panels: a light or dark theme after the widget's
// palette, a transparent background so the chart sits in the window, compact margins.
void styleChart(QChart *chart, const QWidget *owner);

// A value axis on about five ticks of a round step (1, 2, 2.5 or 5 x 10^n) anchored at 0, its
// range the ticks just around [low, high], its labels with the step's decimals.
void setRoundTicks(QValueAxis *axis, double low, double high);

// Shrinks the category names (from `font` down to 7 pt) until the widest fits in its share of
// `plotWidth`, else turns them upright: Qt would elide them, even slanted.
void fitCategoryLabels(QBarCategoryAxis *axis, const QStringList &categories, double plotWidth,
                       QFont font);

// Colours that read on both palettes, for series that mean the same thing across charts.
namespace chartColors {
inline const QColor training {0x1f, 0x77, 0xb4};
inline const QColor validation {0xe6, 0x7e, 0x22};
inline const QColor time {0x1f, 0x77, 0xb4};
inline const QColor power {0xc0, 0x39, 0x2b};
inline const QColor violation {0xe6, 0x7e, 0x22};
inline const QColor violationOne {0xc0, 0x39, 0x2b};
inline const QColor pt {0x2c, 0xa0, 0x2c};  // PowerTrain transfer (the accuracy study)
inline const QColor nn {0x94, 0x67, 0xbd};  // a network trained on the target alone
inline const QColor feasible {0x2c, 0xa0, 0x2c};  // answers within every budget (concurrent)
inline const QColor exact {0x1f, 0x77, 0xb4};  // answers as good as the optimum
}  // namespace chartColors

}  // namespace ptwb::ui
