#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <utility>

namespace ptwb {

// Secrets (passwords, passphrases, keyboard-interactive answers) are overwritten in memory once
// used, and again by whatever holds them when it goes (SecretTexts), so they do not linger in
// freed memory. A QString or QByteArray shares its characters with its copies: these overwrite
// only what nothing else shares, except wipeShared, whose caller knows every holder is done.

// Overwrites the characters of `secret` (when no copy shares them) and empties it; the emptied
// string keeps its buffer, zeroed, until it goes.
void wipeSecret(QString &secret);
void wipeSecret(QByteArray &secret);
// Overwrites the characters `secret` shares with every copy of it (a widget's text), then
// empties it. Only for text whose every holder is done with it.
void wipeShared(QString &secret);
// A deep copy: characters of its own, shared with nothing (so that wipeSecret reaches them).
QString ownCopy(const QString &text);

// A list of secrets that overwrites them when it goes (what no copy of the list shares).
class SecretTexts : public QList<QString>
{
public:
    using QList<QString>::QList;
    SecretTexts() = default;
    SecretTexts(const QStringList &other)  // NOLINT: converting, like the list itself
        : QList<QString>(other)
    {
    }
    SecretTexts(QStringList &&other) noexcept  // NOLINT
        : QList<QString>(std::move(other))
    {
    }
    SecretTexts(const SecretTexts &) = default;
    SecretTexts(SecretTexts &&) noexcept = default;
    SecretTexts &operator=(const SecretTexts &) = default;
    SecretTexts &operator=(SecretTexts &&) noexcept = default;
    ~SecretTexts() { wipe(); }

    // Overwrites and empties every text (the list keeps its size).
    void wipe();
};

// One secret's bytes with one holder at a time: take() hands them on (moved, never shared), and
// what is still held when it goes is overwritten.
class SecretBytes
{
public:
    explicit SecretBytes(QByteArray bytes)
        : m_bytes(std::move(bytes))
    {
    }
    SecretBytes(const SecretBytes &) = delete;
    SecretBytes &operator=(const SecretBytes &) = delete;
    ~SecretBytes() { wipeSecret(m_bytes); }

    QByteArray take() { return std::exchange(m_bytes, QByteArray()); }
    const QByteArray &bytes() const { return m_bytes; }

private:
    QByteArray m_bytes;
};

// One question of the SSH transport to a person, with what to show for it.
struct SshPromptRequest
{
    enum class Kind {
        UnknownHost,  // host, port, keyType, fingerprint: trust it and remember it?
        Passphrase,  // keyFile: the passphrase of this encrypted private key
        Password,  // user, host: the account's password
        KeyboardInteractive,  // name, instruction, questions: one round, every question answered
    };
    struct Question
    {
        QString text;
        bool echo = false;  // whether the answer may be shown while typed
    };

    quint64 id = 0;  // unique in the process; cancel() names it
    Kind kind = Kind::Password;
    QString host;
    int port = 22;
    QString keyType;  // "ssh-ed25519"
    QString fingerprint;  // "SHA256:..." exactly as OpenSSH prints it; show it verbatim
    QString keyFile;
    QString user;
    QString name;  // keyboard-interactive: from the server; show as plain text
    QString instruction;  // likewise
    QList<Question> questions;
};

struct SshPromptAnswer
{
    // UnknownHost: trusted (it is then written to known_hosts). A secret: given. false: refused,
    // skipped, or no one to ask.
    bool given = false;
    // The passphrase or password (one), or a keyboard-interactive round's answers in order.
    // Used once, then overwritten in memory; never log them. Overwritten when the answer goes
    // too, so one that arrives after its question was withdrawn does not linger either.
    SecretTexts texts;
    // When not given without a person saying no (no terminal, a batch run): what the user can do
    // instead, for the error message ("re-run with --accept-new-host-key ...").
    QString note;
};

// What the SSH transport asks a person. The GUI implements it with non-modal dialogs
// (ui/DialogSshPrompts), the CLI on the terminal (or refuses everything without one), the tests
// with fixed answers.
//
// ask() is called on the transport's worker thread and hands the answer to `reply` once, from
// any thread (a withdrawn question need not be answered). A GUI implementation returns at once and
// replies later from the GUI thread; the worker meanwhile keeps running its event loop
// (SshPromptWait) and stops waiting when the connection is cancelled, calling cancel(id): the
// question is then withdrawn (close its dialog; a reply after that is ignored). A synchronous
// implementation (terminal, tests) may answer before ask() returns: SynchronousSshPrompts. The
// object is held by shared_ptr, may be asked from several workers at once and may be destroyed on
// any thread.
class SshPrompts
{
public:
    using Question = SshPromptRequest::Question;
    using Reply = std::function<void(SshPromptAnswer)>;

    virtual ~SshPrompts() = default;
    virtual void ask(const SshPromptRequest &request, Reply reply) = 0;
    virtual void cancel(quint64 /*id*/) { }
};

// Answers on the asking (worker) thread before ask() returns, one blocking method per kind of
// question. For the terminal, whose reads block the worker anyway, and for tests.
class SynchronousSshPrompts : public SshPrompts
{
public:
    void ask(const SshPromptRequest &request, Reply reply) final;

    // The host is not in known_hosts. Show host:port, the key type and the fingerprint exactly
    // as given and ask whether it is the right device.
    virtual bool acceptUnknownHost(const QString &host, int port, const QString &keyType,
                                   const QString &sha256Fingerprint) = 0;
    // The passphrase of an encrypted private key; nullopt skips this key.
    virtual std::optional<QString> passphrase(const QString &keyFile) = 0;
    // The account's password; nullopt gives up password authentication.
    virtual std::optional<QString> password(const QString &user, const QString &host) = 0;
    // One round of keyboard-interactive authentication; nullopt gives up this method.
    virtual std::optional<QStringList> keyboardInteractive(const QString &name,
                                                           const QString &instruction,
                                                           const QList<Question> &questions) = 0;
    // After acceptUnknownHost() said no: when no person was asked, how to trust the key instead
    // (SshPromptAnswer::note); empty when a person refused it.
    virtual QString unconfirmedHostNote() const { return {}; }
};

// Answers every question with "no": unknown hosts are refused, no secrets. For batch runs.
class RefusingSshPrompts : public SynchronousSshPrompts
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
    QString unconfirmedHostNote() const override
    {
        return QStringLiteral("No one was asked (a batch run). Check the fingerprint on the "
                              "device (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), then "
                              "connect once where you can accept it.");
    }
};

}  // namespace ptwb
