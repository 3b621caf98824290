#include "standinsudo.h"

#include "sshdfixture.h"

#include <QDir>
#include <QFile>

namespace {

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAll(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
        file.write(content) == content.size();
}

}  // namespace

StandInSudo::StandInSudo(const QString &directory, const QByteArray &password)
    : m_dir(directory)
    , m_password(password)
{
}

bool StandInSudo::install(const SshdFixture &sshd, QString *error, const QByteArray &keyOptions)
{
    const QString bin = m_dir + QStringLiteral("/bin");
    const QString seen = m_dir + QStringLiteral("/seen");
    const QString prefix = m_dir + QStringLiteral("/device");
    if (!QDir().mkpath(bin) || !QDir().mkpath(seen) || !QDir().mkpath(prefix)) {
        *error = QStringLiteral("cannot make the directories under %1").arg(m_dir);
        return false;
    }
    const QString sudo = bin + QStringLiteral("/sudo");
    const bool written =
        writeAll(seen + QStringLiteral("/expected"), m_password + '\n') &&
        writeAll(
            sudo,
            "#!/bin/sh\n"
            "seen='" +
                QFile::encodeName(seen) +
                "'\n"
                "printf '%s\\n' \"$@\" > \"$seen/argv\"\n"
                "env > \"$seen/env\"\n"
                "IFS= read -r pw\n"
                "if [ \"$pw\" != \"$(cat \"$seen/expected\")\" ]; then\n"
                "  echo 'Sorry, try again.' >&2; echo 'sudo: 1 incorrect password attempt' >&2\n"
                "  exit 1\n"
                "fi\n"
                "[ \"$1\" = -S ] && shift; [ \"$1\" = -p ] && shift 2\n"
                "SUDO_USER=nvidia PTWB_SETUP_PREFIX='" +
                QFile::encodeName(prefix) + "' exec \"$@\"\n");
    if (!written ||
        !QFile::setPermissions(sudo,
                               QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                   QFile::ReadOther | QFile::ExeOther)) {
        *error = QStringLiteral("cannot write %1").arg(sudo);
        return false;
    }
    static int keys = 0;
    m_key = sshd.makeKey(QStringLiteral("sudoer-%1").arg(++keys));
    if (m_key.isEmpty()) {
        *error = QStringLiteral("ssh-keygen failed");
        return false;
    }
    sshd.authorize(m_key,
                   "environment=\"PATH=" + QFile::encodeName(bin) +
                       ":/usr/local/bin:/usr/bin:/bin\"" +
                       (keyOptions.isEmpty() ? QByteArray() : ',' + keyOptions));
    return true;
}

QByteArray StandInSudo::seenArguments() const
{
    return readAll(m_dir + QStringLiteral("/seen/argv"));
}

QByteArray StandInSudo::seenEnvironment() const
{
    return readAll(m_dir + QStringLiteral("/seen/env"));
}

QString StandInSudo::helperPath() const
{
    return m_dir + QStringLiteral("/device/usr/lib/powertrain-workbench/ptwb-helper");
}

QString StandInSudo::stateDirectory() const
{
    return m_dir + QStringLiteral("/device/var/lib/powertrain-workbench");
}

QString StandInSudo::sudoersPath() const
{
    return m_dir + QStringLiteral("/device/etc/sudoers.d/powertrain-workbench");
}

QByteArray StandInSudo::sudoers() const
{
    return readAll(sudoersPath());
}
