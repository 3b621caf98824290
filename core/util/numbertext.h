#pragma once

#include <QByteArray>

namespace ptwb {

// The shortest text that reads back to the same double, spelled as Python's repr() spells it
// (the published measurement files were written by Python): a whole number keeps its ".0".
void appendShortest(QByteArray &out, double value);

}  // namespace ptwb
