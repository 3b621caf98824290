#include "devicesetupcommand.h"

#include "devicesetup.h"
#include "devicetargets.h"
#include "terminalprompts.h"

#include <QJsonArray>

#include <cstdio>
#include <string>

namespace ptwb::cli {

namespace {

// The first line of standard input (a script's or a test's password), wiped after the copy.
std::optional<QByteArray> passwordFromStdin()
{
    std::string line;
    int c;
    while ((c = std::fgetc(stdin)) != EOF && c != '\n')
        line.push_back(char(c));
    if (c == EOF && line.empty())
        return std::nullopt;
    QByteArray password(line.data(), qsizetype(line.size()));
    std::fill(line.begin(), line.end(), '\0');
    return password;
}

}  // namespace

void DeviceCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption({QStringLiteral("target"),
                      QStringLiteral("The device: ssh://USER@HOST[:PORT]."),
                      QStringLiteral("TARGET")});
    parser.addOption({QStringLiteral("password-stdin"),
                      QStringLiteral("Read the sudo password from the first line of standard "
                                     "input instead of asking on the terminal.")});
    addSshOptions(parser);
}

int DeviceCommand::run(const QCommandLineParser &parser, Output &output) const
{
    const QStringList words = parser.positionalArguments();
    if (words != QStringList {QStringLiteral("setup")})
        return output.badUsage(QStringLiteral("device: expected `ptwb device setup --target "
                                              "ssh://USER@HOST`"));
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("target")}, output, &exitCode))
        return exitCode;
    const QString target = parser.value(QStringLiteral("target"));
    std::optional<QByteArray> password;
    if (parser.isSet(QStringLiteral("password-stdin"))) {
        password = passwordFromStdin();
    } else if (std::optional<QString> typed =
                   askSecret(QStringLiteral("sudo password on %1: ").arg(target))) {
        password = typed->toUtf8();
        typed->fill(QLatin1Char('\0'));
    }
    if (!password)
        return output.badUsage(QStringLiteral("device setup: no sudo password (no terminal to "
                                              "ask on; give --password-stdin)"));
    workflows::ConnectionOptions options;
    options.identityFiles = parser.values(QStringLiteral("identity"));
    options.knownHostsPath = parser.value(QStringLiteral("known-hosts"));
    options.sshConfigPath = parser.value(QStringLiteral("ssh-config"));
    options.prompts =
        std::make_shared<TerminalPrompts>(parser.isSet(QStringLiteral("accept-new-host-key")));
    const Expected<HelperSetup::Report> report = workflows::setupHelper(target, options, *password);
    password->fill('\0');
    if (!report)
        return output.fail(report);
    if (output.json()) {
        output.object({{QStringLiteral("target"), target},
                       {QStringLiteral("ok"), report->ok()},
                       {QStringLiteral("steps"), QJsonArray::fromStringList(report->lines)},
                       {QStringLiteral("sudo_error"), report->sudoError}});
    } else {
        for (const QString &line : report->lines)
            output.line(line);
    }
    if (!report->ok()) {
        const QString why = !report->sudoError.isEmpty() ? report->sudoError
            : !report->lines.isEmpty()                   ? report->lines.constLast()
                                       : QStringLiteral("exit status %1").arg(report->exitStatus);
        return output.fail(QStringLiteral("device setup on %1 failed: %2").arg(target, why),
                           ErrorKind::Failed);
    }
    return kExitOk;
}

}  // namespace ptwb::cli
