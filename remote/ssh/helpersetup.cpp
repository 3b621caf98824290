#include "helpersetup.h"

#include "shellquote.h"
#include "simulatorlauncher.h"
#include "sshsession.h"
#include "util/printable.h"

#include <QCryptographicHash>
#include <QFile>
#include <QRegularExpression>

namespace ptwb::HelperSetup {

namespace {

constexpr int kSetupTimeoutMs = 120000;

// Reads the helper from stdin (what sudo left after the password line) and runs it as the
// module "ptwb_setup", which installs the bytes it was given (ptwb_helper.install).
const char kLoader[] =
    "import sys;s=sys.stdin.buffer.read();"
    "exec(compile(s,'ptwb-helper','exec'),{'__name__':'ptwb_setup','PTWB_SOURCE':s})";

// Where remote/agent/ptwb_helper.py installs things (its INSTALL_PATH, STATE_DIR, BOOT_UNIT,
// SUDOERS_FILE).
const char kHelperPath[] = "/usr/lib/powertrain-workbench/ptwb-helper";
const char kStateDirectory[] = "/var/lib/powertrain-workbench";
const char kBootUnit[] = "powertrain-workbench-boot.service";
const char kSudoersFile[] = "/etc/sudoers.d/powertrain-workbench";

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

QString sudoersRule(const QString &user)
{
    return QStringLiteral("%1 ALL=(root) NOPASSWD: %2").arg(user, QLatin1String(kHelperPath));
}

Report reportOf(int exitStatus, const QByteArray &out, const QByteArray &err,
                const QByteArray &source)
{
    Report report;
    report.exitStatus = exitStatus;
    const QStringList device = plainLines(out);
    const QStringList deviceErr = plainLines(err);
    if (exitStatus != 0) {
        report.lines = device;
        if (!deviceErr.isEmpty())
            report.sudoError = deviceErr.constLast();
        return report;
    }
    // The device's words are only checked, never shown: they must name this very helper and a
    // rule of the one form the installer writes.
    const QString digest =
        QString::fromLatin1(QCryptographicHash::hash(source, QCryptographicHash::Sha256).toHex());
    static const QRegularExpression rule(
        QStringLiteral("^sudoers drop-in %1: ([a-z_][a-z0-9_-]{0,31}) ALL=\\(root\\) "
                       "NOPASSWD: %2$")
            .arg(QRegularExpression::escape(QLatin1String(kSudoersFile)),
                 QRegularExpression::escape(QLatin1String(kHelperPath))));
    const QString installed =
        QStringLiteral("installed %1 (sha256 %2,").arg(QLatin1String(kHelperPath), digest);
    bool helperSeen = false;
    bool bootWarning = false;
    QStringList users;
    for (const QString &line : device) {
        helperSeen = helperSeen || line.startsWith(installed);
        bootWarning = bootWarning || line.startsWith(QLatin1String("warning: systemctl")) ||
            line.startsWith(QLatin1String("systemctl not found"));
        const QRegularExpressionMatch match = rule.match(line);
        if (match.hasMatch() && !users.contains(match.captured(1)))
            users.append(match.captured(1));
    }
    if (!helperSeen || users.size() != 1) {
        report.lines = device;
        report.problem = !helperSeen
            ? QStringLiteral("the device did not report installing this workbench's helper "
                             "(sha256 %1)")
                  .arg(digest)
            : QStringLiteral("the device's report does not name one user for the sudoers rule");
        report.lines.append(report.problem);
        return report;
    }
    report.user = users.constFirst();
    report.lines = {
        QStringLiteral("installed %1 (sha256 %2, owner root, mode 0755)")
            .arg(QLatin1String(kHelperPath), digest),
        QStringLiteral("state directory %1 (owner root, mode 0700)")
            .arg(QLatin1String(kStateDirectory)),
        QStringLiteral("boot unit %1 (applies a mode staged for after a reboot, once per boot)")
            .arg(QLatin1String(kBootUnit)),
    };
    if (bootWarning) {
        report.lines.append(QStringLiteral("warning: %1 could not be enabled on the device; a "
                                           "staged mode is applied by the helper's first call "
                                           "after the reboot instead")
                                .arg(QLatin1String(kBootUnit)));
    }
    report.lines << QStringLiteral("sudoers drop-in %1: %2")
                        .arg(QLatin1String(kSudoersFile), sudoersRule(report.user))
                 << QStringLiteral("checked with visudo -c: ok");
    return report;
}

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
    return reportOf(ran->exitStatus, ran->out, ran->err, source);
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
