#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace ptwb {

// What the SSH transport asks a person. The GUI implements it with dialogs, the CLI on the
// terminal (or refuses everything with --batch), the tests with fixed answers.
//
// Every method is called on the transport's worker thread, never on the GUI thread, and may
// block until the person answers: a GUI implementation hops to the GUI thread with
// QMetaObject::invokeMethod(..., Qt::BlockingQueuedConnection, ...) and returns the answer.
// The implementation must be thread-safe and outlive the transport (it is held by shared_ptr).
// A secret returned here is used once, then overwritten in memory; never log it.
class SshPrompts
{
public:
    virtual ~SshPrompts() = default;

    // The host is not in known_hosts. Show host:port, the key type ("ssh-ed25519") and the
    // fingerprint exactly as given ("SHA256:..." as OpenSSH prints it) and ask whether it is
    // the right device. true: it is remembered in known_hosts and the connection goes on.
    virtual bool acceptUnknownHost(const QString &host, int port, const QString &keyType,
                                   const QString &sha256Fingerprint) = 0;
    // The passphrase of an encrypted private key; nullopt skips this key.
    virtual std::optional<QString> passphrase(const QString &keyFile) = 0;
    // The account's password; nullopt gives up password authentication.
    virtual std::optional<QString> password(const QString &user, const QString &host) = 0;
    // One round of keyboard-interactive authentication: answer every prompt in order (`echo`
    // says whether the answer may be shown while typed). nullopt gives up this method.
    struct Question
    {
        QString text;
        bool echo = false;
    };
    virtual std::optional<QStringList> keyboardInteractive(const QString &name,
                                                           const QString &instruction,
                                                           const QList<Question> &questions) = 0;
};

// Answers every question with "no": unknown hosts are refused, no secrets. For batch runs.
class RefusingSshPrompts : public SshPrompts
{
public:
    bool acceptUnknownHost(const QString &, int, const QString &, const QString &) override
    {
        return false;
    }
    std::optional<QString> passphrase(const QString &) override { return std::nullopt; }
    std::optional<QString> password(const QString &, const QString &) override
    {
        return std::nullopt;
    }
    std::optional<QStringList> keyboardInteractive(const QString &, const QString &,
                                                   const QList<Question> &) override
    {
        return std::nullopt;
    }
};

}  // namespace ptwb
