#include "util/printable.h"

#include <QList>

namespace ptwb {

QString printable(const QString &text, int maxChars)
{
    QString out = text.left(maxChars);
    for (QChar &c : out) {
        if (!c.isPrint())
            c = QLatin1Char('?');
    }
    return out;
}

namespace {

bool isBidiControl(char32_t c)
{
    return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
        (c >= 0x2066 && c <= 0x2069);
}

QString escapeForTerminal(const QString &text, bool keepLines)
{
    QString out;
    out.reserve(text.size());
    // toUcs4() reads a lone surrogate as U+FFFD
    const QList<uint> codes = text.toUcs4();
    for (const uint code : codes) {
        const char32_t c = code;
        if (keepLines && (c == U'\n' || c == U'\t')) {
            out += QChar(c);
        } else if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
            out += QStringLiteral("\\x%1").arg(uint(c), 2, 16, QLatin1Char('0'));
        } else if (isBidiControl(c) || QChar::category(c) == QChar::Other_Format ||
                   QChar::category(c) == QChar::Separator_Line ||
                   QChar::category(c) == QChar::Separator_Paragraph) {
            out += QStringLiteral("\\u{") +
                QString::number(uint(c), 16).toUpper().rightJustified(4, QLatin1Char('0')) +
                QLatin1Char('}');
        } else {
            out += QString::fromUcs4(&c, 1);
        }
    }
    return out;
}

}  // namespace

QString terminalSafe(const QString &text)
{
    return escapeForTerminal(text, false);
}

QString terminalSafeLines(const QString &text)
{
    return escapeForTerminal(text, true);
}

}  // namespace ptwb
