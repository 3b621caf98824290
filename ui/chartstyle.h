#pragma once

#include <QColor>

class QChart;
class QWidget;

namespace ptwb::ui {

// The small charts of the Models and Compare panels: a light or dark theme after the widget's
// palette, a transparent background so the chart sits in the window, compact margins.
void styleChart(QChart *chart, const QWidget *owner);

// Colours that read on both palettes, for series that mean the same thing across charts.
namespace chartColors {
inline const QColor training {0x1f, 0x77, 0xb4};
inline const QColor validation {0xe6, 0x7e, 0x22};
inline const QColor time {0x1f, 0x77, 0xb4};
inline const QColor power {0xc0, 0x39, 0x2b};
inline const QColor violation {0xe6, 0x7e, 0x22};
inline const QColor violationOne {0xc0, 0x39, 0x2b};
}  // namespace chartColors

}  // namespace ptwb::ui
