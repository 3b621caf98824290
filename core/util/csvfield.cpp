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

Lines Lines::of(const QByteArray &input)
{
    Lines out;
    QByteArray data = input;
    if (data.startsWith("\xEF\xBB\xBF"))
        data.remove(0, 3);
    out.endsWithNewline = data.endsWith('\n');
    out.lines = data.split('\n');
    if (out.endsWithNewline)
        out.lines.removeLast();
    for (QByteArray &line : out.lines) {
        if (line.endsWith('\r'))
            line.chop(1);
    }
    out.lastContent = int(out.lines.size()) - 1;
    while (out.lastContent >= 0 && out.lines[out.lastContent].trimmed().isEmpty())
        --out.lastContent;
    if (out.lastContent >= 0) {
        out.header = 0;
        while (out.lines[out.header].trimmed().isEmpty())
            ++out.header;
    }
    return out;
}

QString fieldCountProblem(const QString &fileName, int line, qsizetype fields, int expected,
                          bool unterminatedLast, const QString &columns)
{
    if (fields == expected)
        return {};
    if (unterminatedLast && fields < expected) {
        return QStringLiteral("%1:%2: the last line is cut short (%3 of %4 fields, no final "
                              "newline); the file looks truncated")
            .arg(fileName)
            .arg(line)
            .arg(fields)
            .arg(expected);
    }
    return QStringLiteral("%1:%2: %3 fields, expected %4 (%5)")
        .arg(fileName)
        .arg(line)
        .arg(fields)
        .arg(expected)
        .arg(columns);
}

}  // namespace ptwb::CsvField
