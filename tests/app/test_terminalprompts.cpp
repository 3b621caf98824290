// The command line's questions on a real (pseudo-)terminal, issue 21 finding 10: a secret is
// read with echo off and the terminal's settings come back afterwards, also when Ctrl-C or a
// kill ends the process mid-question; the server's keyboard-interactive texts reach the
// terminal without their control characters. Each case runs askSecret/TerminalPrompts in a
// child process on a new pty (forkpty) and drives it from the master side.

#include "cli/terminalprompts.h"

#include <QByteArray>
#include <QTest>

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <functional>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

using namespace ptwb;
using namespace ptwb::cli;

namespace {

// A child process on a pseudo-terminal; the test keeps a slave descriptor of its own open, so
// the terminal's settings outlive the child.
struct TerminalChild
{
    pid_t pid = -1;
    int master = -1;
    int slave = -1;

    ~TerminalChild()
    {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
        if (master >= 0)
            ::close(master);
        if (slave >= 0)
            ::close(slave);
    }

    bool echoOn() const
    {
        termios settings {};
        return tcgetattr(slave, &settings) == 0 && (settings.c_lflag & ECHO) != 0;
    }

    // What the child wrote, up to and including `needle` (or all there was after 20 s).
    QByteArray readUntil(const QByteArray &needle)
    {
        QByteArray seen;
        for (int waited = 0; !seen.contains(needle) && waited < 20000;) {
            pollfd fd {master, POLLIN, 0};
            if (::poll(&fd, 1, 100) <= 0) {
                waited += 100;
                continue;
            }
            char buffer[4096];
            const ssize_t got = ::read(master, buffer, sizeof buffer);
            if (got <= 0)
                break;
            seen.append(buffer, got);
        }
        return seen;
    }

    void type(const QByteArray &text) const
    {
        (void)!::write(master, text.constData(), size_t(text.size()));
    }

    // The child's end: its exit code, or 128 + the signal that ended it.
    int wait()
    {
        int status = 0;
        if (::waitpid(pid, &status, 0) != pid)
            return -1;
        pid = -1;
        return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    }
};

// Runs `body` in a child whose standard streams are a new pseudo-terminal, echo on.
std::unique_ptr<TerminalChild> onTerminal(const std::function<int()> &body)
{
    auto child = std::make_unique<TerminalChild>();
    const pid_t pid = forkpty(&child->master, nullptr, nullptr, nullptr);
    if (pid == 0) {
        const int code = body();
        std::fflush(nullptr);  // _exit() does not
        _exit(code);
    }
    if (pid < 0)
        return nullptr;
    child->pid = pid;
    child->slave = ::open(ptsname(child->master), O_RDWR | O_NOCTTY);
    return child;
}

bool echoOnStdin()
{
    termios settings {};
    return tcgetattr(STDIN_FILENO, &settings) == 0 && (settings.c_lflag & ECHO) != 0;
}

}  // namespace

class TestTerminalPrompts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void secretIsReadWithoutEchoThenTheTerminalIsRestored()
    {
        auto child = onTerminal([] {
            const std::optional<QString> answer = askSecret(QStringLiteral("Secret: "));
            std::printf("ANSWER[%s] ECHO=%d END\n", answer ? qPrintable(*answer) : "none",
                        echoOnStdin() ? 1 : 0);
            return 0;
        });
        QVERIFY(child);
        QVERIFY(child->echoOn());
        const QByteArray prompt = child->readUntil("Secret: ");
        QVERIFY2(prompt.endsWith("Secret: "), prompt.constData());
        QVERIFY(!child->echoOn());  // off before the question shows
        child->type("hunter2\n");
        const QByteArray out = child->readUntil("END");
        QVERIFY2(out.contains("ANSWER[hunter2] ECHO=1"), out.constData());
        QCOMPARE(out.count("hunter2"), 1);  // never echoed
        QCOMPARE(child->wait(), 0);
        QVERIFY(child->echoOn());
    }

    void aSignalDuringTheQuestionRestoresTheTerminal_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("Ctrl-C") << int(SIGINT);
        QTest::newRow("kill") << int(SIGTERM);
        QTest::newRow("hang-up") << int(SIGHUP);
    }

    void aSignalDuringTheQuestionRestoresTheTerminal()
    {
        QFETCH(int, signal);
        auto child = onTerminal([] {
            const std::optional<QString> answer = askSecret(QStringLiteral("Secret: "));
            std::printf("RETURNED %d\n", answer ? 1 : 0);
            return 0;
        });
        QVERIFY(child);
        QVERIFY(child->readUntil("Secret: ").endsWith("Secret: "));
        QVERIFY(!child->echoOn());
        child->type("half");  // a half-typed secret, no newline
        ::kill(child->pid, signal);
        QCOMPARE(child->wait(), 128 + signal);  // the signal still ends the process
        QVERIFY(child->echoOn());
    }

    // Ctrl-Z: the shell gets its terminal back with echo on; continued, the question goes on
    // without echo. (Ctrl-Z also discards what was typed on the line so far: the terminal does
    // that for any program, so the answer is what is typed after.) The child plays the shell:
    // the question runs in a job of its own (a process group that is not orphaned, or the
    // kernel ignores a stop), in the foreground, as a shell runs `ptwb`.
    void ctrlZGivesTheTerminalBackAndTheQuestionGoesOn()
    {
        auto child = onTerminal([] {
            const pid_t job = ::fork();
            if (job == 0) {
                ::setpgid(0, 0);
                for (int waited = 0; ::tcgetpgrp(STDIN_FILENO) != ::getpgrp(); ++waited) {
                    if (waited > 5000)
                        _exit(4);
                    ::usleep(1000);
                }
                const std::optional<QString> answer = askSecret(QStringLiteral("Secret: "));
                std::printf("ANSWER[%s] ECHO=%d END\n", answer ? qPrintable(*answer) : "none",
                            echoOnStdin() ? 1 : 0);
                std::fflush(nullptr);
                _exit(0);
            }
            ::setpgid(job, job);
            ::signal(SIGTTOU, SIG_IGN);  // the shell takes its terminal back from the background
            ::tcsetpgrp(STDIN_FILENO, job);
            int status = 0;
            while (::waitpid(job, &status, WUNTRACED) == job && WIFSTOPPED(status)) {
                ::tcsetpgrp(STDIN_FILENO, ::getpgrp());
                std::printf("STOPPED ECHO=%d\n", echoOnStdin() ? 1 : 0);
                std::fflush(stdout);
                char line[16];
                if (!std::fgets(line, sizeof line, stdin))  // "fg"
                    return 3;
                ::tcsetpgrp(STDIN_FILENO, job);
                ::kill(-job, SIGCONT);
            }
            return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
        });
        QVERIFY(child);
        QVERIFY(child->readUntil("Secret: ").endsWith("Secret: "));
        QVERIFY(!child->echoOn());
        child->type("hun");
        child->type("\x1a");  // Ctrl-Z
        const QByteArray stopped = child->readUntil("\n");
        QVERIFY2(stopped.contains("STOPPED ECHO=1"), stopped.constData());
        QVERIFY(child->echoOn());
        child->type("fg\n");
        QTRY_VERIFY_WITH_TIMEOUT(!child->echoOn(), 5000);  // off again for the rest
        child->type("hunter2\n");
        const QByteArray out = child->readUntil("END");
        QVERIFY2(out.contains("ANSWER[hunter2] ECHO=1"), out.constData());
        QCOMPARE(out.count("hunter2"), 1);  // not echoed after the stop either
        QCOMPARE(child->wait(), 0);
        QVERIFY(child->echoOn());
    }

    void serverTextsCannotSteerTheTerminal()
    {
        // OSC 52 (write the clipboard), a title change, erase line, a C1 CSI.
        auto child = onTerminal([] {
            TerminalPrompts prompts(false);
            const std::optional<QStringList> answers = prompts.keyboardInteractive(
                QStringLiteral("\x1b]52;c;aGk=\x07Lab"),
                QStringLiteral("\x1b]0;owned\x07Welcome\n\x1b[2Kline two"),
                {{QStringLiteral("\x1b[1A\x1b[2KCode\u009b2K: "), true}});
            std::printf("ANSWERS[%s] END\n",
                        answers ? qPrintable(answers->join(QLatin1Char(','))) : "none");
            return 0;
        });
        QVERIFY(child);
        QByteArray out = child->readUntil(": ");
        child->type("42\n");
        out += child->readUntil("END");
        QVERIFY2(out.contains("ANSWERS[42] END"), out.constData());
        QVERIFY2(!out.contains('\x1b'), out.toPercentEncoding().constData());
        QVERIFY2(!out.contains('\x07'), out.toPercentEncoding().constData());
        QVERIFY2(!out.contains("\xc2\x9b"), out.toPercentEncoding().constData());
        QVERIFY(out.contains("Lab"));
        QVERIFY(out.contains("Welcome"));
        QCOMPARE(child->wait(), 0);
    }

    void noTerminalNoQuestion()
    {
        // Not a terminal (the test's own stdin may be anything; a pipe is certain).
        int pipeFds[2];
        QCOMPARE(::pipe(pipeFds), 0);
        const pid_t pid = fork();
        if (pid == 0) {
            ::dup2(pipeFds[0], STDIN_FILENO);
            _exit(askSecret(QStringLiteral("Secret: ")) ? 1 : 0);
        }
        (void)!::write(pipeFds[1], "typed\n", 6);
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
    }
};

QTEST_GUILESS_MAIN(TestTerminalPrompts)
#include "test_terminalprompts.moc"
