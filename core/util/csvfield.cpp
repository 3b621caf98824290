#include "util/csvfield.h"

#include <cmath>

namespace ptwb::CsvField {

QByteArray unquote(const QByteArray &field)
{
    const QByteArray trimmed = field.trimmed();
    if (trimmed.size() >= 2 && trimmed.front() == '"' && trimmed.back() == '"')
        return trimmed.mid(1, trimmed.size() - 2).trimmed();
    return trimmed;
}

bool parseWhole(const QByteArray &text, qint64 *out)
{
    bool ok = false;
    *out = text.toLongLong(&ok);
    if (ok)
        return true;
    const double value = text.toDouble(&ok);
    if (!ok || !std::isfinite(value) || value != std::floor(value) || std::fabs(value) > 9e15)
        return false;
    *out = static_cast<qint64>(value);
    return true;
}

}  // namespace ptwb::CsvField
