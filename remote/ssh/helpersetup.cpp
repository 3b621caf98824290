#include "helpersetup.h"

#include "shellquote.h"
#include "simulatorlauncher.h"
#include "sshsession.h"
#include "util/printable.h"

#include <QFile>

namespace ptwb::HelperSetup {

namespace {

constexpr int kSetupTimeoutMs = 120000;

// Reads the helper from stdin (what sudo left after the password line) and runs it as the
// module "ptwb_setup", which installs the bytes it was given (ptwb_helper.install).
const char kLoader[] =
    "import sys;s=sys.stdin.buffer.read();"
    "exec(compile(s,'ptwb-helper','exec'),{'__name__':'ptwb_setup','PTWB_SOURCE':s})";

QStringList plainLines(const QByteArray &text)
{
    QStringList out;
    for (const QByteArray &line : text.split('\n')) {
        const QString plain = printable(QString::fromUtf8(line).trimmed(), 500);
        if (!plain.isEmpty())
            out.append(plain);
        if (out.size() >= 50)
            break;
    }
    return out;
}

}  // namespace

QByteArray commandLine()
{
    return ShellQuote::join({QStringLiteral("sudo"), QStringLiteral("-S"), QStringLiteral("-p"),
                             QString(), QStringLiteral("/usr/bin/python3"), QStringLiteral("-I"),
                             QStringLiteral("-c"), QLatin1String(kLoader)});
}

Expected<QByteArray> helperSource()
{
    Expected<QString> directory = SimulatorLauncher::scriptDirectory();
    if (!directory)
        return passOn<Expected<QByteArray>>(directory);
    QFile file(*directory + QStringLiteral("/agent/ptwb_helper.py"));
    if (!file.open(QIODevice::ReadOnly))
        return Expected<QByteArray>::failure(QStringLiteral("cannot read the helper %1: %2")
                                                 .arg(file.fileName(), file.errorString()));
    return file.readAll();
}

Expected<Report> install(SshSession &session, const QByteArray &password, const QByteArray &source)
{
    if (password.contains('\n') || password.contains('\r'))
        return Expected<Report>::failure(
            QStringLiteral("the password cannot contain a line break"));
    QByteArray input = password + '\n' + source;
    Expected<SshSession::RunResult> ran = session.run(commandLine(), kSetupTimeoutMs, input);
    input.fill('\0');
    if (!ran)
        return passOn<Expected<Report>>(ran);
    Report report;
    report.exitStatus = ran->exitStatus;
    report.lines = plainLines(ran->out);
    const QStringList err = plainLines(ran->err);
    if (!report.ok() && !err.isEmpty())
        report.sudoError = err.constLast();
    return report;
}

Expected<Report> run(const SshOptions &options, const QByteArray &password)
{
    Expected<QByteArray> source = helperSource();
    if (!source)
        return passOn<Expected<Report>>(source);
    SshSession session(options);
    if (Status connected = session.connect(); !connected)
        return Expected<Report>::failure(connected.error());
    Expected<Report> report = install(session, password, *source);
    session.disconnect();
    return report;
}

}  // namespace ptwb::HelperSetup
