#pragma once

#include <QString>

namespace ptwb {

// A device's (or a file's) text fit to show or quote: at most `maxChars`, every control
// character replaced by '?', so nothing it sends can steer a terminal or fill a screen.
QString printable(const QString &text, int maxChars = 200);

// Text for a terminal: every character a terminal could act on is written out instead, so a
// device cannot write the clipboard (OSC 52), set the title, erase or reorder what the user
// reads. C0 controls (ESC, CR, LF, TAB included), DEL and C1 (U+0080..U+009F) become \xNN; bidi
// controls (U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069), line/paragraph separators and
// other format characters become \u{XXXX}; a lone surrogate becomes U+FFFD. Nothing is cut.
QString terminalSafe(const QString &text);
// The same, but '\n' and '\t' stay: for ptwb's own multi-line messages that quote device text
// (the device's part should have gone through terminalSafe() already).
QString terminalSafeLines(const QString &text);

}  // namespace ptwb
