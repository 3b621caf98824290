#pragma once

#include <QString>

namespace ptwb {

// A device's (or a file's) text fit to show or quote: at most `maxChars`, every control
// character replaced by '?', so nothing it sends can steer a terminal or fill a screen.
QString printable(const QString &text, int maxChars = 200);

}  // namespace ptwb
