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

QByteArray commandLine(const QStringList &argv, bool useSudo)
{
    QStringList tokens;
    if (useSudo)
        tokens << QStringLiteral("sudo") << QStringLiteral("-n");
    tokens += argv;
    return join(tokens);
}

QString sudoersLine(const QString &user, const QString &program, const QStringList &arguments)
{
    // sudoers treats , : = \ and spaces in a command's arguments specially; escape them so the
    // line matches the exact command (our paths have none, but a home directory might).
    auto escape = [](QString text) {
        for (const QChar c : {QLatin1Char('\\'), QLatin1Char(','), QLatin1Char(':'),
                              QLatin1Char('='), QLatin1Char(' ')})
            text.replace(c, QStringLiteral("\\") + c);
        return text;
    };
    QStringList parts {escape(program)};
    for (const QString &argument : arguments)
        parts << escape(argument);
    return QStringLiteral("%1 ALL=(root) NOPASSWD: %2").arg(user, parts.join(QLatin1Char(' ')));
}

}  // namespace ptwb::ShellQuote
