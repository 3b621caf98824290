#pragma once

#include <QString>

namespace ptwb {
struct SweepProgress;
}

namespace ptwb::ui {

// "12 / 50 modes · 3 failed · 1 min 20 s elapsed · about 2 min 10 s left".
QString sweepProgressText(const SweepProgress &progress);

}  // namespace ptwb::ui
