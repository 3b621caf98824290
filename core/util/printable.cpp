#include "util/printable.h"

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

}  // namespace ptwb
