#pragma once

#include <QByteArray>
#include <QString>

class SshdFixture;

// A stand-in `sudo` for the tests of the helper's setup (`ptwb device setup`, the Devices view's
// Set up) against the loopback sshd: a shell script first on the PATH of one key's logins (set
// by that key's environment= option in authorized_keys, so no other login sees it). It records
// its argv and environment, checks that the expected password is stdin's first line (else says
// what real sudo says and fails), and runs the rest with the installer's paths under a temporary
// prefix and SUDO_USER=nvidia: this machine's /usr and /etc are never touched (real sudo strips
// PTWB_SETUP_PREFIX).
class StandInSudo
{
public:
    // Everything lives under `directory`: bin/sudo, seen/ (what it saw), device/ (the prefix).
    StandInSudo(const QString &directory, const QByteArray &password);

    // Writes the script and a key whose logins see it; false with *error otherwise. `keyOptions`
    // are more authorized_keys options for that key (e.g. command="..." to plant output).
    bool install(const SshdFixture &sshd, QString *error, const QByteArray &keyOptions = {});
    // The private key to log in with (after install()).
    QString key() const { return m_key; }

    // What sudo saw: its arguments one a line, and its environment (`env`).
    QByteArray seenArguments() const;
    QByteArray seenEnvironment() const;
    // Where the installer put things, under the prefix.
    QString helperPath() const;
    QString stateDirectory() const;
    QString sudoersPath() const;
    QByteArray sudoers() const;

private:
    QString m_dir;
    QByteArray m_password;
    QString m_key;
};
