#include "shellquote.h"

namespace ptwb::ShellQuote {

QByteArray quote(const QByteArray &token)
{
    QByteArray quoted;
    quoted.reserve(token.size() + 2);
    quoted += '\'';
    for (const char c : token) {
        if (c == '\'')
            quoted += "'\\''";  // close, an escaped quote, reopen
        else
            quoted += c;
    }
    quoted += '\'';
    return quoted;
}

QByteArray quote(const QString &token)
{
    return quote(token.toUtf8());
}

QByteArray join(const QStringList &argv)
{
    QByteArray line;
    for (const QString &token : argv) {
        if (!line.isEmpty())
            line += ' ';
        line += quote(token);
    }
    return line;
}

}  // namespace ptwb::ShellQuote
