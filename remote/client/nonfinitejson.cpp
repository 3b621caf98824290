#include "nonfinitejson.h"

#include <QRegularExpression>

#include <cmath>

namespace ptwb {

namespace {

bool isNumberChar(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// A number in JSON's grammar too large for a double (1e999). One too small (1e-999) is 0.
bool overflows(const QByteArray &number)
{
    static const QRegularExpression grammar(
        QStringLiteral("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE]([+-]?)[0-9]+)?$"));
    const QRegularExpressionMatch match = grammar.match(QString::fromLatin1(number));
    if (!match.hasMatch())
        return false;
    bool ok = false;
    const double value = number.toDouble(&ok);
    if (ok)
        return !std::isfinite(value);
    return match.captured(4) != QLatin1String("-");
}

// The literal at `at`, when it is one of the words Python writes for non-finite floats.
qsizetype nonFiniteWordAt(const QByteArray &line, qsizetype at)
{
    for (const char *word : {"-Infinity", "Infinity", "NaN"}) {
        const QByteArray w = QByteArray::fromRawData(word, qsizetype(qstrlen(word)));
        if (line.mid(at, w.size()) == w)
            return w.size();
    }
    return 0;
}

}  // namespace

std::optional<QByteArray> withNonFiniteNumbersAsText(const QByteArray &line)
{
    QByteArray out;
    out.reserve(line.size());
    bool replaced = false;
    qsizetype i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == '"') {  // a string, copied as it is (with its escapes)
            qsizetype end = i + 1;
            while (end < line.size() && line[end] != '"')
                end += line[end] == '\\' ? 2 : 1;
            end = std::min(end + 1, line.size());
            out.append(line.mid(i, end - i));
            i = end;
        } else if (const qsizetype word = nonFiniteWordAt(line, i)) {
            out.append('"').append(line.mid(i, word)).append('"');
            replaced = true;
            i += word;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            qsizetype end = i + 1;
            while (end < line.size() && isNumberChar(line[end]))
                ++end;
            const QByteArray number = line.mid(i, end - i);
            if (overflows(number)) {
                out.append('"').append(number).append('"');
                replaced = true;
            } else {
                out.append(number);
            }
            i = end;
        } else {
            out.append(c);
            ++i;
        }
    }
    if (!replaced)
        return std::nullopt;
    return out;
}

}  // namespace ptwb
