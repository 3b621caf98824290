#include "sshsession.h"

#include "sshcancel.h"
#include "sshpromptwait.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <libssh/sftp.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fcntl.h>
#include <memory>

namespace ptwb {

namespace {

constexpr int kMaxPassphraseTries = 3;
constexpr int kMaxPasswordTries = 3;
constexpr int kMaxKeyboardRounds = 8;
constexpr qint64 kUploadChunk = 32 * 1024;
const char kGlobalKnownHosts[] = "/etc/ssh/ssh_known_hosts";

QString homeDirectory()
{
    return QDir::homePath();
}

QString localUserName()
{
    const QString fromEnvironment = qEnvironmentVariable("USER");
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    if (const passwd *entry = getpwuid(geteuid()))
        return QString::fromLocal8Bit(entry->pw_name);
    return {};
}

// "~/x" and libssh's "%d/x" (the ssh directory) to absolute paths.
QString expandPath(QString path)
{
    if (path.startsWith(QLatin1String("%d/")))
        path = homeDirectory() + QStringLiteral("/.ssh/") + path.mid(3);
    else if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
        path = homeDirectory() + path.mid(1);
    return path;
}

// Overwrites a secret in place before it is released.
void wipe(QByteArray &secret)
{
    if (!secret.isEmpty()) {
        volatile char *data = secret.data();  // detached: data() is non-const
        for (qsizetype i = 0; i < secret.size(); ++i)
            data[i] = 0;
    }
    secret.clear();
}

void wipe(QString &secret)
{
    if (!secret.isEmpty()) {
        volatile char16_t *data = reinterpret_cast<char16_t *>(secret.data());
        for (qsizetype i = 0; i < secret.size(); ++i)
            data[i] = 0;
    }
    secret.clear();
}

struct KeyFree
{
    void operator()(ssh_key key) const { ssh_key_free(key); }
};
using KeyPtr = std::unique_ptr<std::remove_pointer_t<ssh_key>, KeyFree>;

struct SftpFree
{
    void operator()(sftp_session sftp) const { sftp_free(sftp); }
};
using SftpPtr = std::unique_ptr<std::remove_pointer_t<sftp_session>, SftpFree>;

struct AttributesFree
{
    void operator()(sftp_attributes attributes) const { sftp_attributes_free(attributes); }
};
using AttributesPtr = std::unique_ptr<std::remove_pointer_t<sftp_attributes>, AttributesFree>;

QString authMethodNames(int methods)
{
    QStringList names;
    if (methods & SSH_AUTH_METHOD_PUBLICKEY)
        names << QStringLiteral("publickey");
    if (methods & SSH_AUTH_METHOD_INTERACTIVE)
        names << QStringLiteral("keyboard-interactive");
    if (methods & SSH_AUTH_METHOD_PASSWORD)
        names << QStringLiteral("password");
    if (methods & SSH_AUTH_METHOD_GSSAPI_MIC)
        names << QStringLiteral("gssapi-with-mic");
    if (methods & SSH_AUTH_METHOD_HOSTBASED)
        names << QStringLiteral("hostbased");
    return names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
}

// The directory name for a set of uploaded files: for one file, the SHA-256 of its content; for
// several, the SHA-256 of "name\0sha256hex\n" lines in the given order.
QString contentAddress(const QList<QByteArray> &contents, const QList<SshLaunch::File> &files)
{
    if (contents.size() == 1)
        return QString::fromLatin1(
            QCryptographicHash::hash(contents.first(), QCryptographicHash::Sha256).toHex());
    QCryptographicHash bundle(QCryptographicHash::Sha256);
    for (qsizetype i = 0; i < files.size(); ++i) {
        bundle.addData(files.at(i).name.toUtf8());
        bundle.addData(QByteArrayView("\0", 1));
        bundle.addData(
            QCryptographicHash::hash(contents.at(i), QCryptographicHash::Sha256).toHex());
        bundle.addData(QByteArrayView("\n", 1));
    }
    return QString::fromLatin1(bundle.result().toHex());
}

}  // namespace

SshSession::SshSession(SshOptions options, std::shared_ptr<SshCancel> cancel)
    : m_options(std::move(options))
    , m_cancel(std::move(cancel))
{
    if (!m_options.prompts)
        m_options.prompts = std::make_shared<RefusingSshPrompts>();
}

SshSession::~SshSession()
{
    disconnect();
}

QString SshSession::target() const
{
    return QStringLiteral("%1@%2").arg(m_user, HostKeyCheck::target(m_host, m_port));
}

std::optional<SshPromptAnswer> SshSession::ask(SshPromptRequest request)
{
    std::optional<SshPromptAnswer> answer =
        SshPromptWait::ask(*m_options.prompts, std::move(request), m_cancel.get());
    if (!answer)
        m_cancelled = true;
    return answer;
}

Status SshSession::cancelled() const
{
    return Status::failure(
        QStringLiteral("connecting to %1 was cancelled while waiting for an answer").arg(target()));
}

QString SshSession::libsshError() const
{
    if (!m_session)
        return QStringLiteral("no session");
    const QString text = QString::fromUtf8(ssh_get_error(m_session));
    return text.isEmpty() ? QStringLiteral("unknown error") : text;
}

QString SshSession::fingerprint(ssh_key key)
{
    unsigned char *hash = nullptr;
    size_t length = 0;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != 0)
        return QStringLiteral("SHA256:?");
    const QByteArray digest(reinterpret_cast<const char *>(hash), qsizetype(length));
    ssh_clean_pubkey_hash(&hash);
    return QStringLiteral("SHA256:") +
        QString::fromLatin1(digest.toBase64(QByteArray::OmitTrailingEquals));
}

bool SshSession::isConnected() const
{
    return m_connected && m_session && ssh_is_connected(m_session);
}

quint64 SshSession::bytesReceived() const
{
    return m_socketCounter.in_bytes;
}

Status SshSession::resolveOptions()
{
    m_host = m_options.host;
    m_user = m_options.user;
    m_port = m_options.port;
    m_knownHosts = m_options.knownHostsPath;
    m_identities = m_options.identityFiles;
    if (m_host.isEmpty())
        return Status::failure(QStringLiteral("no host given for the SSH connection"),
                               ErrorKind::BadInput);

    const QString configPath = m_options.configPath.isEmpty()
        ? homeDirectory() + QStringLiteral("/.ssh/config")
        : m_options.configPath;
    if (m_options.readConfig && QFileInfo::exists(configPath)) {
        // Parsed into a scratch session, and only the values we use are copied: nothing else
        // in the file (StrictHostKeyChecking, ProxyCommand, algorithms) reaches the connection.
        ssh_session scratch = ssh_new();
        if (!scratch)
            return Status::failure(QStringLiteral("libssh: out of memory"));
        bool processConfig = false;
        ssh_options_set(scratch, SSH_OPTIONS_PROCESS_CONFIG, &processConfig);
        ssh_options_set(scratch, SSH_OPTIONS_HOST, m_options.host.toUtf8().constData());
        if (ssh_options_parse_config(scratch, QFile::encodeName(configPath).constData()) != 0) {
            const QString error = QString::fromUtf8(ssh_get_error(scratch));
            ssh_free(scratch);
            return Status::failure(
                QStringLiteral("cannot read the ssh config %1: %2").arg(configPath, error),
                ErrorKind::BadInput);
        }
        auto take = [scratch](ssh_options_e option) {
            char *value = nullptr;
            QString text;
            if (ssh_options_get(scratch, option, &value) == SSH_OK && value) {
                text = QString::fromUtf8(value);
                ssh_string_free_char(value);
            }
            return text;
        };
        const QString host = take(SSH_OPTIONS_HOST);
        if (!host.isEmpty())
            m_host = host;
        if (m_user.isEmpty())
            m_user = take(SSH_OPTIONS_USER);
        if (m_knownHosts.isEmpty())
            m_knownHosts = take(SSH_OPTIONS_KNOWNHOSTS);
        const QString identity = take(SSH_OPTIONS_IDENTITY);
        // libssh lists its defaults as "%d/id_*"; anything else came from IdentityFile.
        if (!identity.isEmpty() && !identity.startsWith(QLatin1String("%d/id_")))
            m_identities << expandPath(identity);
        if (m_port == 0) {
            unsigned int port = 0;
            if (ssh_options_get_port(scratch, &port) == SSH_OK && port > 0)
                m_port = int(port);
        }
        ssh_free(scratch);
    }
    if (m_port <= 0)
        m_port = 22;
    if (m_user.isEmpty())
        m_user = localUserName();
    m_knownHosts = m_knownHosts.isEmpty() ? homeDirectory() + QStringLiteral("/.ssh/known_hosts")
                                          : expandPath(m_knownHosts);
    if (m_options.useDefaultIdentities) {
        for (const char *name : {"id_ed25519", "id_ecdsa", "id_rsa"})
            m_identities << homeDirectory() + QStringLiteral("/.ssh/") + QLatin1String(name);
    }
    m_identities.removeDuplicates();
    return {};
}

Status SshSession::connect()
{
    disconnect();
    m_hostKeyRejected = false;
    m_cancelled = false;
    if (Status resolved = resolveOptions(); !resolved)
        return resolved;

    m_session = ssh_new();
    if (!m_session)
        return Status::failure(QStringLiteral("libssh: out of memory"));
    bool processConfig = false;  // we read the config ourselves (resolveOptions)
    ssh_options_set(m_session, SSH_OPTIONS_PROCESS_CONFIG, &processConfig);
    const QByteArray host = m_host.toUtf8();
    const QByteArray user = m_user.toUtf8();
    const QByteArray knownHosts = QFile::encodeName(m_knownHosts);
    const unsigned int port = unsigned(m_port);
    const long timeoutSeconds = qMax(1L, long((m_options.connectTimeoutMs + 999) / 1000));
    ssh_options_set(m_session, SSH_OPTIONS_HOST, host.constData());
    ssh_options_set(m_session, SSH_OPTIONS_PORT, &port);
    ssh_options_set(m_session, SSH_OPTIONS_USER, user.constData());
    ssh_options_set(m_session, SSH_OPTIONS_KNOWNHOSTS, knownHosts.constData());
    ssh_options_set(m_session, SSH_OPTIONS_TIMEOUT, &timeoutSeconds);
    int noDelay = 1;  // JSON lines are small; send each at once
    ssh_options_set(m_session, SSH_OPTIONS_NODELAY, &noDelay);
    ssh_set_counters(m_session, &m_packetCounter, &m_socketCounter);
    ssh_set_blocking(m_session, 1);

    if (ssh_connect(m_session) != SSH_OK) {
        const QString error = libsshError();
        disconnect();
        return Status::failure(QStringLiteral("cannot connect to %1: %2")
                                   .arg(HostKeyCheck::target(m_host, m_port), error));
    }
    setTcpKeepalive();
    if (Status verified = verifyHostKey(); !verified) {
        disconnect();
        m_hostKeyRejected = !m_cancelled;  // a cancel is no verdict on the key
        return verified;
    }
    if (Status authenticated = authenticate(); !authenticated) {
        disconnect();
        return authenticated;
    }
    m_connected = true;
    return {};
}

void SshSession::setTcpKeepalive()
{
    // The kernel's share of dead-connection detection: a peer that vanished without a reset (a
    // cable, a Wi-Fi drop, a power cut) is given up after about the same time as the SSH-level
    // keepalives would, even while data we sent waits unacknowledged.
    const int fd = ssh_get_fd(m_session);
    if (fd < 0)
        return;
    const int intervalSeconds = qMax(1, m_options.keepaliveIntervalMs / 1000);
    const int missed = qMax(1, m_options.keepaliveMaxMissed);
    const int on = 1;
    const unsigned int userTimeoutMs = unsigned(qMax(1000, m_options.keepaliveIntervalMs * missed));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &intervalSeconds, sizeof intervalSeconds);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intervalSeconds, sizeof intervalSeconds);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &missed, sizeof missed);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &userTimeoutMs, sizeof userTimeoutMs);
}

HostKeyFacts SshSession::hostKeyFacts()
{
    HostKeyFacts facts;
    facts.host = m_host;
    facts.port = m_port;
    facts.knownHostsFile = m_knownHosts;
    ssh_key offered = nullptr;
    if (ssh_get_server_publickey(m_session, &offered) != SSH_OK) {
        facts.state = HostKeyFacts::State::Error;
        facts.detail = QStringLiteral("the server sent no host key: ") + libsshError();
        return facts;
    }
    KeyPtr offeredKey(offered);
    facts.keyType = QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(offered)));
    facts.fingerprint = fingerprint(offered);

    const int known = ssh_session_is_known_server(m_session);
    if (known != SSH_KNOWN_HOSTS_OK) {
        // libssh reads a known_hosts it cannot open as no file at all: a known host would look
        // new, and accepting it would append a key next to the one that could not be read.
        for (const QString &path : {m_knownHosts, QString::fromLatin1(kGlobalKnownHosts)}) {
            const QString unreadable = HostKeyCheck::unreadableKnownHosts(path);
            if (!unreadable.isEmpty()) {
                facts.state = HostKeyFacts::State::Error;
                facts.knownHostsFile = path;
                facts.detail = unreadable;
                return facts;
            }
        }
    }
    switch (known) {
    case SSH_KNOWN_HOSTS_OK:
        facts.state = HostKeyFacts::State::Known;
        return facts;
    case SSH_KNOWN_HOSTS_UNKNOWN:
        facts.state = HostKeyFacts::State::Unknown;
        return facts;
    case SSH_KNOWN_HOSTS_NOT_FOUND:
        facts.state = HostKeyFacts::State::NoKnownHostsFile;
        return facts;
    case SSH_KNOWN_HOSTS_CHANGED:
        facts.state = HostKeyFacts::State::Changed;
        break;
    case SSH_KNOWN_HOSTS_OTHER:
        facts.state = HostKeyFacts::State::OtherType;
        break;
    default:
        facts.state = HostKeyFacts::State::Error;
        facts.detail = libsshError();
        return facts;
    }

    // Changed or other type: list what the files hold, so the message can show both keys.
    const QByteArray name = HostKeyCheck::knownHostsName(m_host, m_port).toUtf8();
    for (const QString &path : {m_knownHosts, QString::fromLatin1(kGlobalKnownHosts)}) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        while (!file.atEnd()) {
            const QByteArray line = file.readLine().trimmed();
            if (line.isEmpty() || line.startsWith('#'))
                continue;
            ssh_knownhosts_entry *entry = nullptr;
            if (ssh_known_hosts_parse_line(name.constData(), line.constData(), &entry) == SSH_OK &&
                entry) {
                if (entry->publickey) {
                    facts.known.append(
                        {QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(entry->publickey))),
                         fingerprint(entry->publickey)});
                }
            }
            ssh_knownhosts_entry_free(entry);
        }
    }
    return facts;
}

Status SshSession::verifyHostKey()
{
    const HostKeyFacts facts = hostKeyFacts();
    const HostKeyDecision decision = HostKeyCheck::decide(facts);
    switch (decision.action) {
    case HostKeyDecision::Action::Proceed:
        return {};
    case HostKeyDecision::Action::Refuse:
        return Status::failure(decision.message);
    case HostKeyDecision::Action::Ask:
        break;
    }
    SshPromptRequest question;
    question.kind = SshPromptRequest::Kind::UnknownHost;
    question.host = m_host;
    question.port = m_port;
    question.keyType = facts.keyType;
    question.fingerprint = facts.fingerprint;
    const std::optional<SshPromptAnswer> answer = ask(question);
    if (!answer)
        return cancelled();
    if (!answer->given)
        return Status::failure(HostKeyCheck::refusedByUser(facts, answer->note));
    // Only now, with the person's consent, is the key written down.
    if (ssh_session_update_known_hosts(m_session) != SSH_OK) {
        return Status::failure(
            QStringLiteral("the host key of %1 was accepted but could not be "
                           "saved to %2: %3")
                .arg(HostKeyCheck::target(m_host, m_port), m_knownHosts, libsshError()));
    }
    return {};
}

Status SshSession::authenticate()
{
    int rc = ssh_userauth_none(m_session, nullptr);
    if (rc == SSH_AUTH_SUCCESS)
        return {};
    if (rc == SSH_AUTH_ERROR)
        return Status::failure(
            QStringLiteral("authentication to %1 failed: %2").arg(target(), libsshError()));
    const int offered = ssh_userauth_list(m_session, nullptr);
    QStringList tried;

    if (offered & SSH_AUTH_METHOD_PUBLICKEY) {
        if (m_options.useAgent && !qEnvironmentVariableIsEmpty("SSH_AUTH_SOCK")) {
            rc = ssh_userauth_agent(m_session, nullptr);
            if (rc == SSH_AUTH_SUCCESS)
                return {};
            tried << QStringLiteral("ssh-agent (no key accepted)");
        } else if (m_options.useAgent) {
            tried << QStringLiteral("ssh-agent (not running: SSH_AUTH_SOCK is not set)");
        }
        for (const QString &path : std::as_const(m_identities)) {
            if (!QFileInfo::exists(path))
                continue;
            const QByteArray file = QFile::encodeName(path);
            // Ask with the public key first when there is one: no passphrase needed for a key
            // the server would refuse anyway.
            const QByteArray publicFile = file + ".pub";
            if (QFileInfo::exists(QFile::decodeName(publicFile))) {
                ssh_key publicKey = nullptr;
                if (ssh_pki_import_pubkey_file(publicFile.constData(), &publicKey) == SSH_OK) {
                    KeyPtr owned(publicKey);
                    rc = ssh_userauth_try_publickey(m_session, nullptr, publicKey);
                    if (rc == SSH_AUTH_ERROR)
                        return Status::failure(QStringLiteral("authentication to %1 failed: %2")
                                                   .arg(target(), libsshError()));
                    if (rc != SSH_AUTH_SUCCESS) {
                        tried << QStringLiteral("key %1 (refused by the server)").arg(path);
                        continue;
                    }
                }
            }
            ssh_key privateKey = nullptr;
            // No passphrase first; libssh is given no callback, so it never reads a terminal.
            rc = ssh_pki_import_privkey_file(file.constData(), nullptr, nullptr, nullptr,
                                             &privateKey);
            bool skipped = false;
            for (int attempt = 0; rc != SSH_OK && attempt < kMaxPassphraseTries; ++attempt) {
                SshPromptRequest question;
                question.kind = SshPromptRequest::Kind::Passphrase;
                question.keyFile = path;
                std::optional<SshPromptAnswer> answer = ask(question);
                if (!answer)
                    return cancelled();
                if (!answer->given || answer->texts.isEmpty()) {
                    skipped = true;
                    break;
                }
                QByteArray secret = answer->texts.first().toUtf8();
                wipe(answer->texts.first());
                rc = ssh_pki_import_privkey_file(file.constData(), secret.constData(), nullptr,
                                                 nullptr, &privateKey);
                wipe(secret);
            }
            if (rc != SSH_OK) {
                tried << (skipped ? QStringLiteral("key %1 (no passphrase given)").arg(path)
                                  : QStringLiteral("key %1 (cannot be read or wrong passphrase)")
                                        .arg(path));
                continue;
            }
            KeyPtr ownedPrivate(privateKey);
            rc = ssh_userauth_publickey(m_session, nullptr, privateKey);
            if (rc == SSH_AUTH_SUCCESS)
                return {};
            if (rc == SSH_AUTH_ERROR)
                return Status::failure(
                    QStringLiteral("authentication to %1 failed: %2").arg(target(), libsshError()));
            tried << QStringLiteral("key %1 (refused by the server)").arg(path);
        }
        if (m_identities.isEmpty() ||
            std::none_of(m_identities.cbegin(), m_identities.cend(),
                         [](const QString &path) { return QFileInfo::exists(path); }))
            tried << QStringLiteral("key files (none found of: %1)")
                         .arg(m_identities.join(QStringLiteral(", ")));
    }

    if (offered & SSH_AUTH_METHOD_INTERACTIVE) {
        bool gaveUp = false;
        rc = ssh_userauth_kbdint(m_session, nullptr, nullptr);
        for (int round = 0; rc == SSH_AUTH_INFO && round < kMaxKeyboardRounds; ++round) {
            const int count = ssh_userauth_kbdint_getnprompts(m_session);
            QList<SshPromptRequest::Question> questions;
            for (int i = 0; i < count; ++i) {
                char echo = 0;
                const char *text = ssh_userauth_kbdint_getprompt(m_session, unsigned(i), &echo);
                questions.append({QString::fromUtf8(text ? text : ""), echo != 0});
            }
            std::optional<QStringList> answers;
            if (count == 0) {
                answers = QStringList();  // an empty round only needs an empty reply
            } else {
                SshPromptRequest round;
                round.kind = SshPromptRequest::Kind::KeyboardInteractive;
                round.host = m_host;
                round.user = m_user;
                round.name = QString::fromUtf8(ssh_userauth_kbdint_getname(m_session));
                round.instruction =
                    QString::fromUtf8(ssh_userauth_kbdint_getinstruction(m_session));
                round.questions = questions;
                std::optional<SshPromptAnswer> answer = ask(round);
                if (!answer)
                    return cancelled();
                if (answer->given)
                    answers = std::move(answer->texts);
            }
            if (!answers || answers->size() < count) {
                gaveUp = true;
                break;
            }
            for (int i = 0; i < count; ++i) {
                QByteArray answer = (*answers)[i].toUtf8();
                wipe((*answers)[i]);
                ssh_userauth_kbdint_setanswer(m_session, unsigned(i), answer.constData());
                wipe(answer);
            }
            rc = ssh_userauth_kbdint(m_session, nullptr, nullptr);
        }
        if (rc == SSH_AUTH_SUCCESS)
            return {};
        if (rc == SSH_AUTH_ERROR)
            return Status::failure(
                QStringLiteral("authentication to %1 failed: %2").arg(target(), libsshError()));
        tried << (gaveUp ? QStringLiteral("keyboard-interactive (no answer given)")
                         : QStringLiteral("keyboard-interactive (refused)"));
    }

    if (offered & SSH_AUTH_METHOD_PASSWORD) {
        bool gaveUp = false;
        for (int attempt = 0; attempt < kMaxPasswordTries; ++attempt) {
            SshPromptRequest question;
            question.kind = SshPromptRequest::Kind::Password;
            question.user = m_user;
            question.host = m_host;
            std::optional<SshPromptAnswer> answer = ask(question);
            if (!answer)
                return cancelled();
            if (!answer->given || answer->texts.isEmpty()) {
                gaveUp = true;
                break;
            }
            QByteArray secret = answer->texts.first().toUtf8();
            wipe(answer->texts.first());
            rc = ssh_userauth_password(m_session, nullptr, secret.constData());
            wipe(secret);
            if (rc == SSH_AUTH_SUCCESS)
                return {};
            if (rc == SSH_AUTH_ERROR)
                return Status::failure(
                    QStringLiteral("authentication to %1 failed: %2").arg(target(), libsshError()));
        }
        tried << (gaveUp ? QStringLiteral("password (none given)")
                         : QStringLiteral("password (refused)"));
    }

    return Status::failure(
        QStringLiteral("authentication to %1 failed. The server offers: %2. Tried: %3.")
            .arg(target(), authMethodNames(offered),
                 tried.isEmpty() ? QStringLiteral("nothing we support")
                                 : tried.join(QStringLiteral("; "))));
}

namespace {

// Whether the remote file holds exactly `content`: read back over SFTP (no command runs on the
// device, nothing is interpolated) and compared by SHA-256. A file of the right size whose bytes
// were changed on the device is uploaded again.
bool sameContent(sftp_session sftp, const QByteArray &remotePath, const QByteArray &content)
{
    sftp_file handle = sftp_open(sftp, remotePath.constData(), O_RDONLY, 0);
    if (!handle)
        return false;
    QCryptographicHash hash(QCryptographicHash::Sha256);
    qint64 total = 0;
    char buffer[kUploadChunk];
    for (;;) {
        const ssize_t n = sftp_read(handle, buffer, sizeof buffer);
        if (n < 0) {
            sftp_close(handle);
            return false;
        }
        if (n == 0)
            break;
        total += n;
        if (total > content.size()) {
            sftp_close(handle);
            return false;
        }
        hash.addData(QByteArrayView(buffer, n));
    }
    sftp_close(handle);
    return total == content.size() &&
        hash.result() == QCryptographicHash::hash(content, QCryptographicHash::Sha256);
}

}  // namespace

Expected<SshSession::Upload> SshSession::upload(const QList<SshLaunch::File> &files)
{
    using Result = Expected<Upload>;
    Upload result;
    QList<QByteArray> contents;
    for (const SshLaunch::File &file : files) {
        QFile local(file.localPath);
        if (!local.open(QIODevice::ReadOnly))
            return Result::failure(QStringLiteral("cannot read %1 for upload: %2")
                                       .arg(file.localPath, local.errorString()));
        contents.append(local.readAll());
    }

    SftpPtr sftp(sftp_new(m_session));
    if (!sftp || sftp_init(sftp.get()) != SSH_OK)
        return Result::failure(
            QStringLiteral("cannot start SFTP on %1: %2").arg(target(), libsshError()));

    QString base = m_options.remoteCacheDir;
    if (!base.startsWith(QLatin1Char('/'))) {
        char *home = sftp_canonicalize_path(sftp.get(), ".");
        if (!home)
            return Result::failure(QStringLiteral("cannot find the home directory on %1: %2")
                                       .arg(target(), libsshError()));
        base = QString::fromUtf8(home) + QLatin1Char('/') + base;
        ssh_string_free_char(home);
    }
    result.directory = QDir::cleanPath(base + QLatin1Char('/') + contentAddress(contents, files));
    if (files.isEmpty())
        return result;

    // mkdir -p, 0700, one component at a time.
    const QStringList parts = result.directory.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QString path;
    for (const QString &part : parts) {
        path += QLatin1Char('/') + part;
        const QByteArray encoded = path.toUtf8();
        AttributesPtr attributes(sftp_stat(sftp.get(), encoded.constData()));
        if (attributes) {
            if (attributes->type != SSH_FILEXFER_TYPE_DIRECTORY)
                return Result::failure(
                    QStringLiteral("%1 on %2 is not a directory").arg(path, target()));
            continue;
        }
        if (sftp_mkdir(sftp.get(), encoded.constData(), 0700) != SSH_OK)
            return Result::failure(
                QStringLiteral("cannot create %1 on %2: %3").arg(path, target(), libsshError()));
    }

    for (qsizetype i = 0; i < files.size(); ++i) {
        const QByteArray &content = contents.at(i);
        const QString remote = result.directory + QLatin1Char('/') + files.at(i).name;
        const QByteArray encoded = remote.toUtf8();
        AttributesPtr existing(sftp_stat(sftp.get(), encoded.constData()));
        if (existing && existing->type == SSH_FILEXFER_TYPE_REGULAR &&
            existing->size == quint64(content.size()) &&
            sameContent(sftp.get(), encoded, content)) {
            ++result.skipped;  // read back: byte for byte (its SHA-256) what we would send
            continue;
        }
        // Write to a side file and rename, so an interrupted upload never leaves a short file
        // under the final name.
        const QByteArray partial = encoded + ".part";
        sftp_file handle =
            sftp_open(sftp.get(), partial.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0700);
        if (!handle)
            return Result::failure(
                QStringLiteral("cannot write %1 on %2: %3").arg(remote, target(), libsshError()));
        for (qsizetype offset = 0; offset < content.size(); offset += kUploadChunk) {
            const qsizetype length = qMin(kUploadChunk, content.size() - offset);
            if (sftp_write(handle, content.constData() + offset, size_t(length)) != length) {
                sftp_close(handle);
                sftp_unlink(sftp.get(), partial.constData());
                return Result::failure(QStringLiteral("uploading %1 to %2 failed: %3")
                                           .arg(remote, target(), libsshError()));
            }
        }
        if (sftp_close(handle) != SSH_OK)
            return Result::failure(QStringLiteral("uploading %1 to %2 failed: %3")
                                       .arg(remote, target(), libsshError()));
        sftp_chmod(sftp.get(), partial.constData(), 0700);  // whatever the remote umask
        sftp_unlink(sftp.get(), encoded.constData());  // SFTP v3 rename does not replace
        if (sftp_rename(sftp.get(), partial.constData(), encoded.constData()) != SSH_OK)
            return Result::failure(QStringLiteral("cannot move %1 into place on %2: %3")
                                       .arg(remote, target(), libsshError()));
        ++result.uploaded;
    }
    return result;
}

Status SshSession::exec(const QByteArray &commandLine)
{
    if (m_channel) {
        ssh_channel_free(m_channel);
        m_channel = nullptr;
    }
    m_channel = ssh_channel_new(m_session);
    if (!m_channel || ssh_channel_open_session(m_channel) != SSH_OK ||
        ssh_channel_request_exec(m_channel, commandLine.constData()) != SSH_OK) {
        const QString error = libsshError();
        if (m_channel) {
            ssh_channel_free(m_channel);
            m_channel = nullptr;
        }
        return Status::failure(
            QStringLiteral("cannot start the command on %1: %2").arg(target(), error));
    }
    return {};
}

Expected<SshSession::RunResult> SshSession::run(const QByteArray &commandLine, int timeoutMs,
                                                const QByteArray &input)
{
    using Result = Expected<RunResult>;
    ssh_channel channel = ssh_channel_new(m_session);
    if (!channel)
        return Result::failure(
            QStringLiteral("cannot open a channel to %1: %2").arg(target(), libsshError()));
    if (ssh_channel_open_session(channel) != SSH_OK ||
        ssh_channel_request_exec(channel, commandLine.constData()) != SSH_OK) {
        const QString error = libsshError();
        ssh_channel_free(channel);
        return Result::failure(
            QStringLiteral("cannot run a command on %1: %2").arg(target(), error));
    }
    for (qsizetype written = 0; written < input.size();) {
        const int n = ssh_channel_write(channel, input.constData() + written,
                                        uint32_t(input.size() - written));
        if (n == SSH_ERROR) {
            const QString error = libsshError();
            ssh_channel_free(channel);
            return Result::failure(
                QStringLiteral("lost the connection to %1: %2").arg(target(), error));
        }
        written += n;
    }
    ssh_channel_send_eof(channel);
    RunResult result;
    const QDeadlineTimer deadline(timeoutMs);
    char buffer[4096];
    while (!deadline.hasExpired()) {
        bool any = false;
        for (int isStderr : {0, 1}) {
            const int n = ssh_channel_read_timeout(channel, buffer, sizeof buffer, isStderr, 50);
            if (n > 0) {
                QByteArray &kept = isStderr ? result.err : result.out;
                if (kept.size() < kRunOutputMax)
                    kept.append(buffer, qMin<qsizetype>(n, kRunOutputMax - kept.size()));
                any = true;
            } else if (n == SSH_ERROR) {
                const QString error = libsshError();
                ssh_channel_free(channel);
                return Result::failure(
                    QStringLiteral("lost the connection to %1: %2").arg(target(), error));
            }
        }
        if (!any && ssh_channel_is_eof(channel))
            break;
    }
    if (!ssh_channel_is_eof(channel)) {
        ssh_channel_close(channel);
        ssh_channel_free(channel);
        return Result::failure(QStringLiteral("a command on %1 did not finish within %2 ms")
                                   .arg(target())
                                   .arg(timeoutMs));
    }
    result.exitStatus = ssh_channel_get_exit_status(channel);
    ssh_channel_close(channel);
    ssh_channel_free(channel);
    return result;
}

void SshSession::disconnect()
{
    if (m_channel) {
        if (ssh_channel_is_open(m_channel)) {
            ssh_channel_send_eof(m_channel);
            ssh_channel_close(m_channel);
        }
        ssh_channel_free(m_channel);
        m_channel = nullptr;
    }
    if (m_session) {
        if (ssh_is_connected(m_session))
            ssh_disconnect(m_session);
        ssh_free(m_session);
        m_session = nullptr;
    }
    m_connected = false;
}

}  // namespace ptwb
