#pragma once

#include "util/expected.h"

#include <QVector>

namespace ptwb {

// A range of positive numbers as a person types it: "17:50:1" -> 17, 18, ..., 50 (FROM:TO:STEP,
// each value rounded to 1e-9 so that 0.5 + 15 x 0.1 is 2, not 2.0000000000000004); "30" -> 30;
// "20,25,30" -> those. Errors are bad input about `field` and show `example` (e.g. "17:50:1").
Expected<QVector<double>> parseNumberRange(const QString &text, InputField field,
                                           const QString &example);

}  // namespace ptwb
