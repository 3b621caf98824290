#include "terminalprompts.h"

#include "util/printable.h"

#include <QMutex>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <pthread.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

namespace ptwb::cli {

namespace {

QMutex terminal;  // one question at a time, whichever worker asks

// The longest answer kept; the rest of a longer line is read and dropped.
constexpr int kMaxAnswerBytes = 1024;
// What of the server's texts (keyboard-interactive name, instruction, prompts) is printed.
constexpr int kMaxShownChars = 500;
constexpr int kMaxInstructionLines = 20;

bool interactive()
{
    return isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
}

// Text from the server or the user's files, printed so that it cannot steer the terminal.
QString shown(const QString &text)
{
    return printable(text, kMaxShownChars);
}

void say(const QString &text)
{
    const QByteArray bytes = text.toLocal8Bit();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stderr);
    std::fflush(stderr);
}

// While echo is off: the terminal's settings to put back when a signal ends the process, and
// the signals' previous dispositions. Only async-signal-safe calls touch them in the handler.
int echoFd = -1;
termios echoSaved {};
termios echoQuiet {};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction previous[std::size(kSignals)];
// Ctrl-Z (and a background read or write): the shell gets its terminal back with echo on, and
// the question goes on without echo when the process is continued.
constexpr int kStopSignals[] = {SIGTSTP, SIGTTIN, SIGTTOU};
struct sigaction previousStop[std::size(kStopSignals)];
std::atomic<bool> interrupted {false};

void restoreOnSignal(int signal)
{
    if (echoFd >= 0)
        tcsetattr(echoFd, TCSANOW, &echoSaved);
    for (size_t i = 0; i < std::size(kSignals); ++i) {
        if (kSignals[i] == signal)
            sigaction(signal, &previous[i], nullptr);
    }
    interrupted = true;
    raise(signal);  // blocked until this handler returns, then what it would have done
}

void suspendOnSignal(int signal)
{
    const int savedErrno = errno;
    if (echoFd >= 0)
        tcsetattr(echoFd, TCSANOW, &echoSaved);
    struct sigaction stop
    {
    };
    stop.sa_handler = SIG_DFL;
    sigemptyset(&stop.sa_mask);
    struct sigaction ours
    {
    };
    sigaction(signal, &stop, &ours);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
    raise(signal);  // stops the process here; continues after SIGCONT
    sigaction(signal, &ours, nullptr);
    if (echoFd >= 0)
        tcsetattr(echoFd, TCSANOW, &echoQuiet);
    errno = savedErrno;
}

// Echo off on `fd` until destroyed (or a signal ends the process: then restored first; or
// stops it: restored while stopped).
class EchoOff
{
public:
    explicit EchoOff(int fd)
    {
        termios saved {};
        if (tcgetattr(fd, &saved) != 0)
            return;
        echoSaved = saved;
        echoFd = fd;
        struct sigaction action
        {
        };
        action.sa_handler = restoreOnSignal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;  // no SA_RESTART: a handled signal ends the read
        for (size_t i = 0; i < std::size(kSignals); ++i)
            sigaction(kSignals[i], &action, &previous[i]);
        termios quiet = saved;
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL);
        echoQuiet = quiet;
        action.sa_handler = suspendOnSignal;
        for (size_t i = 0; i < std::size(kStopSignals); ++i)
            sigaction(kStopSignals[i], &action, &previousStop[i]);
        tcsetattr(fd, TCSAFLUSH, &quiet);
        m_fd = fd;
    }
    ~EchoOff()
    {
        if (m_fd < 0)
            return;
        tcsetattr(m_fd, TCSAFLUSH, &echoSaved);
        for (size_t i = 0; i < std::size(kSignals); ++i)
            sigaction(kSignals[i], &previous[i], nullptr);
        for (size_t i = 0; i < std::size(kStopSignals); ++i)
            sigaction(kStopSignals[i], &previousStop[i], nullptr);
        echoFd = -1;
    }
    EchoOff(const EchoOff &) = delete;
    EchoOff &operator=(const EchoOff &) = delete;

private:
    int m_fd = -1;
};

// Reads one line from `fd` with read(2) into a fixed buffer (no stdio buffer keeps a copy),
// which is overwritten before it is released, whatever way the read ends.
std::optional<QString> readLine(int fd)
{
    char buffer[kMaxAnswerBytes];
    size_t length = 0;
    bool ended = false;  // a newline
    bool eof = false;
    while (!ended) {
        char c = 0;
        const ssize_t got = ::read(fd, &c, 1);
        if (got < 0 && errno == EINTR && !interrupted)
            continue;
        if (got <= 0) {
            eof = true;
            break;
        }
        if (c == '\n' || c == '\r')
            ended = true;
        else if (length < sizeof buffer)
            buffer[length++] = c;
        c = 0;
    }
    std::optional<QString> answer;
    if (!interrupted && !(eof && length == 0))
        answer = QString::fromLocal8Bit(buffer, qsizetype(length));
    explicit_bzero(buffer, sizeof buffer);
    return answer;
}

// Asks `question` on the terminal and reads one line, without echo for secrets.
std::optional<QString> readAnswer(const QString &question, bool echo)
{
    if (!interactive())
        return std::nullopt;
    interrupted = false;
    if (echo) {
        say(question);
        return readLine(STDIN_FILENO);
    }
    std::optional<QString> answer;
    {
        const EchoOff quiet(STDIN_FILENO);  // before the question: nothing typed is echoed
        say(question);
        answer = readLine(STDIN_FILENO);
    }
    say(QStringLiteral("\n"));
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
    const QString where = shown(QStringLiteral("%1:%2").arg(host).arg(port));
    if (m_acceptNewHostKey) {
        say(QStringLiteral("ptwb: accepting the new host key of %1 (%2 %3) as asked\n")
                .arg(where, shown(keyType), shown(sha256Fingerprint)));
        return true;
    }
    const std::optional<QString> answer = readAnswer(
        QStringLiteral("The authenticity of host '%1' can't be established.\n%2 key fingerprint "
                       "is %3.\nIs this the device you meant (yes/no)? ")
            .arg(where, shown(keyType), shown(sha256Fingerprint)),
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
    return readAnswer(QStringLiteral("Passphrase for %1: ").arg(shown(keyFile)), false);
}

std::optional<QString> TerminalPrompts::password(const QString &user, const QString &host)
{
    const QMutexLocker lock(&terminal);
    return readAnswer(QStringLiteral("%1@%2's password: ").arg(shown(user), shown(host)), false);
}

std::optional<QStringList> TerminalPrompts::keyboardInteractive(const QString &name,
                                                                const QString &instruction,
                                                                const QList<Question> &questions)
{
    const QMutexLocker lock(&terminal);
    if (!interactive())
        return std::nullopt;
    // The server's name, instruction and prompts: control characters shown as '?', so none
    // of them can write to the clipboard, retitle or erase what the terminal shows.
    if (!name.isEmpty())
        say(shown(name) + QLatin1Char('\n'));
    const QStringList lines = instruction.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size() && i < kMaxInstructionLines; ++i) {
        if (!lines[i].isEmpty() || i + 1 < lines.size())
            say(shown(lines[i]) + QLatin1Char('\n'));
    }
    SecretTexts answers;
    for (const Question &question : questions) {
        std::optional<QString> answer = readAnswer(shown(question.text), question.echo);
        if (!answer)
            return std::nullopt;  // what was answered so far is wiped with `answers`
        answers.append(std::move(*answer));
    }
    return QStringList(std::move(answers));
}

}  // namespace ptwb::cli
