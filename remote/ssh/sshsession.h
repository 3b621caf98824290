#pragma once

#include "hostkeycheck.h"
#include "sshoptions.h"
#include "util/expected.h"

#include <QByteArray>
#include <QString>

#include <libssh/libssh.h>

#include <memory>
#include <optional>

namespace ptwb {

class SshCancel;

// One libssh session, used from one thread only, every call blocking (bounded by the connect
// timeout). SshTransport's worker owns one; tests drive it directly. Order: connect() (TCP,
// host key, authentication), then upload() and exec() or run().
class SshSession
{
public:
    // `cancel`, when given, ends a wait for a prompt's answer (SshPromptWait): connect() then
    // fails with "... was cancelled ...".
    explicit SshSession(SshOptions options, std::shared_ptr<SshCancel> cancel = {});
    ~SshSession();
    SshSession(const SshSession &) = delete;
    SshSession &operator=(const SshSession &) = delete;

    // Resolves the ssh config, connects, verifies the host key BEFORE authenticating (asking
    // the prompts about an unknown host), then authenticates: agent, key files,
    // keyboard-interactive, password. Errors name user@host:port.
    Status connect();
    bool isConnected() const;
    // After connect() failed: whether it was the host key (unknown and not accepted, changed,
    // of another type, or not checkable). Trying again cannot fix that; see SshTransport.
    bool hostKeyRejected() const { return m_hostKeyRejected; }

    struct Upload
    {
        QString directory;  // absolute, on the device
        int uploaded = 0;
        int skipped = 0;  // already there, byte for byte (read back, SHA-256 compared)
    };
    // Uploads the files by SFTP to CACHE/<sha256>/<name> (dirs and files mode 0700).
    Expected<Upload> upload(const QList<SshLaunch::File> &files);

    // Opens a channel and execs the command line (see ShellQuote); the channel stays owned here.
    Status exec(const QByteArray &commandLine);
    ssh_channel channel() const { return m_channel; }
    // Runs a command to its end on a channel of its own: stdout, stderr (each kept up to
    // kRunOutputMax bytes: the device is not trusted), exit status. `input` is written to its
    // stdin, then EOF.
    struct RunResult
    {
        QByteArray out;
        QByteArray err;
        int exitStatus = -1;
    };
    static constexpr qsizetype kRunOutputMax = 1 << 20;
    Expected<RunResult> run(const QByteArray &commandLine, int timeoutMs = 10000,
                            const QByteArray &input = {});

    // Closes the exec channel (EOF first) and the connection.
    void disconnect();

    ssh_session handle() const { return m_session; }
    // Bytes received on the socket so far (keepalive replies included): the liveness clock.
    quint64 bytesReceived() const;
    const SshOptions &options() const { return m_options; }
    QString user() const { return m_user; }
    QString host() const { return m_host; }
    int port() const { return m_port; }
    // "user@host:port"
    QString target() const;
    // The last libssh error text for this session.
    QString libsshError() const;

    // "SHA256:..." like OpenSSH prints it.
    static QString fingerprint(ssh_key key);

private:
    Status resolveOptions();
    Status verifyHostKey();
    Status authenticate();
    // Asks the prompts and waits without blocking this thread's events; nullopt: cancelled.
    std::optional<SshPromptAnswer> ask(SshPromptRequest request);
    Status cancelled() const;
    HostKeyFacts hostKeyFacts();
    void setTcpKeepalive();

    SshOptions m_options;
    ssh_session m_session = nullptr;
    ssh_channel m_channel = nullptr;
    ssh_counter_struct m_socketCounter {};
    ssh_counter_struct m_packetCounter {};
    QString m_host;
    QString m_user;
    int m_port = 22;
    QString m_knownHosts;
    QStringList m_identities;
    bool m_connected = false;
    bool m_hostKeyRejected = false;
    bool m_cancelled = false;  // a prompt was cancelled during connect()
    std::shared_ptr<SshCancel> m_cancel;
};

}  // namespace ptwb
