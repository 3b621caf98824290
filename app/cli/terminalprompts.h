#pragma once

#include "prompts.h"

namespace ptwb::cli {

// Asks on the terminal without echo; nothing when there is no terminal.
std::optional<QString> askSecret(const QString &question);

// The command line's answers to the SSH transport's questions: on the terminal when there is
// one (secrets read without echo), refused otherwise. An unknown host key is accepted without a
// question only with --accept-new-host-key, which the user types knowingly; a changed key is
// never accepted (the transport does not even ask). Synchronous: each question blocks the
// asking SSH worker thread (only that one) until the terminal answers.
class TerminalPrompts : public SynchronousSshPrompts
{
public:
    explicit TerminalPrompts(bool acceptNewHostKey)
        : m_acceptNewHostKey(acceptNewHostKey)
    {
    }

    bool acceptUnknownHost(const QString &host, int port, const QString &keyType,
                           const QString &sha256Fingerprint) override;
    std::optional<QString> passphrase(const QString &keyFile) override;
    std::optional<QString> password(const QString &user, const QString &host) override;
    std::optional<QStringList> keyboardInteractive(const QString &name, const QString &instruction,
                                                   const QList<Question> &questions) override;
    // Without a terminal: re-run with --accept-new-host-key (after checking the fingerprint).
    QString unconfirmedHostNote() const override;

private:
    bool m_acceptNewHostKey;
};

}  // namespace ptwb::cli
