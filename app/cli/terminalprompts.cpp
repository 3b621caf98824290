#include "terminalprompts.h"

#include <QMutex>

#include <cstdio>
#include <string>
#include <termios.h>
#include <unistd.h>

namespace ptwb::cli {

namespace {

QMutex terminal;  // one question at a time, whichever worker asks

bool interactive()
{
    return isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
}

// Reads one line from the terminal, without echo for secrets.
std::optional<QString> readAnswer(const QString &question, bool echo)
{
    if (!interactive())
        return std::nullopt;
    std::fprintf(stderr, "%s", question.toLocal8Bit().constData());
    std::fflush(stderr);
    termios saved {};
    const bool hide = !echo && tcgetattr(STDIN_FILENO, &saved) == 0;
    if (hide) {
        termios quiet = saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    std::string line;
    int c;
    while ((c = std::fgetc(stdin)) != EOF && c != '\n')
        line.push_back(char(c));
    if (hide) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
        std::fprintf(stderr, "\n");
    }
    QString answer = QString::fromLocal8Bit(line.data(), qsizetype(line.size()));
    std::fill(line.begin(), line.end(), '\0');
    if (c == EOF && answer.isEmpty())
        return std::nullopt;
    return answer;
}

}  // namespace

std::optional<QString> askSecret(const QString &question)
{
    const QMutexLocker lock(&terminal);
    return readAnswer(question, false);
}

bool TerminalPrompts::acceptUnknownHost(const QString &host, int port, const QString &keyType,
                                        const QString &sha256Fingerprint)
{
    const QMutexLocker lock(&terminal);
    const QString where = QStringLiteral("%1:%2").arg(host).arg(port);
    if (m_acceptNewHostKey) {
        std::fprintf(stderr, "ptwb: accepting the new host key of %s (%s %s) as asked\n",
                     qPrintable(where), qPrintable(keyType), qPrintable(sha256Fingerprint));
        return true;
    }
    const std::optional<QString> answer = readAnswer(
        QStringLiteral("The authenticity of host '%1' can't be established.\n%2 key fingerprint "
                       "is %3.\nIs this the device you meant (yes/no)? ")
            .arg(where, keyType, sha256Fingerprint),
        true);
    return answer && answer->trimmed().compare(QLatin1String("yes"), Qt::CaseInsensitive) == 0;
}

QString TerminalPrompts::unconfirmedHostNote() const
{
    if (interactive())
        return {};  // the person on the terminal said no
    return QStringLiteral("there is no terminal to ask whether to trust it. Check the "
                          "fingerprint on the device (ssh-keygen -lf "
                          "/etc/ssh/ssh_host_ed25519_key.pub); if it matches, re-run with "
                          "--accept-new-host-key to trust it and remember it");
}

std::optional<QString> TerminalPrompts::passphrase(const QString &keyFile)
{
    const QMutexLocker lock(&terminal);
    return readAnswer(QStringLiteral("Passphrase for %1: ").arg(keyFile), false);
}

std::optional<QString> TerminalPrompts::password(const QString &user, const QString &host)
{
    const QMutexLocker lock(&terminal);
    return readAnswer(QStringLiteral("%1@%2's password: ").arg(user, host), false);
}

std::optional<QStringList> TerminalPrompts::keyboardInteractive(const QString &name,
                                                                const QString &instruction,
                                                                const QList<Question> &questions)
{
    const QMutexLocker lock(&terminal);
    if (!interactive())
        return std::nullopt;
    if (!name.isEmpty() || !instruction.isEmpty())
        std::fprintf(stderr, "%s\n%s\n", qPrintable(name), qPrintable(instruction));
    QStringList answers;
    for (const Question &question : questions) {
        std::optional<QString> answer = readAnswer(question.text, question.echo);
        if (!answer)
            return std::nullopt;
        answers.append(*answer);
    }
    return answers;
}

}  // namespace ptwb::cli
