#pragma once

#include <QByteArray>
#include <QList>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

#include <memory>

// A throwaway OpenSSH server on 127.0.0.1 for the SSH transport's tests (the kio-extras habit):
// a free port, a fresh ed25519 host key and user key made by ssh-keygen in a temporary
// directory, authorized_keys there, StrictModes and PAM off, the log in a file. Works as root
// (CI) and as a normal user (who can then only log in as themselves, which is what we do).
class SshdFixture
{
public:
    SshdFixture();
    ~SshdFixture();

    // Empty when sshd or ssh-keygen is missing: the reason to skip.
    static QString missingPrograms();
    // Starts the server and waits until its port accepts; false with *error otherwise.
    bool start(QString *error);
    void stop();

    int port() const { return m_port; }
    QString user() const { return m_user; }
    QString directory() const { return m_dir.path(); }
    QString userKey() const { return m_dir.filePath(QStringLiteral("userkey")); }
    // "SHA256:..." of the server's host key, as ssh-keygen -l prints it.
    QString hostKeyFingerprint() const { return m_hostFingerprint; }
    // Makes another ed25519 key pair in the directory: the private key's path.
    QString makeKey(const QString &name, QString *fingerprint = nullptr,
                    const QString &passphrase = {}) const;
    // Lets the key log in (appends it to authorized_keys), with authorized_keys options such as
    // environment="PATH=..." (the server takes PATH from there: PermitUserEnvironment PATH).
    void authorize(const QString &privateKeyPath, const QByteArray &keyOptions = {}) const;
    // The public key line (type, base64) of a key made here.
    QByteArray publicKey(const QString &privateKeyPath) const;
    QString log() const;

    // The sshd processes serving connections (the listener's descendants).
    QList<qint64> sessionPids() const;
    void signalSessions(int signal) const;

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_sshd;
    int m_port = 0;
    QString m_user;
    QString m_hostFingerprint;
};
