#pragma once

#include <QList>
#include <QString>

namespace ptwb {

// The host-key decision, apart from libssh so it can be tested on its own. SshSession gathers
// the facts (what the server offered, what known_hosts says) and acts on the decision: go on, ask
// the person (then remember the key), or refuse. Nothing here weakens with configuration: a
// changed key or a key of another type is always refused, whatever ssh_config says.
struct KnownHostKey
{
    QString type;  // "ssh-ed25519"
    QString fingerprint;  // "SHA256:..."
};

struct HostKeyFacts
{
    enum class State {
        Known,  // known_hosts has this very key for host:port
        Unknown,  // no entry for host:port
        NoKnownHostsFile,  // no known_hosts file at all (it is created on accept)
        Changed,  // an entry of the same type holds another key
        OtherType,  // entries exist, but only for other key types
        Error,  // the file could not be read or the key not obtained
    };

    State state = State::Error;
    QString host;
    int port = 22;
    QString keyType;  // what the server offered
    QString fingerprint;
    QList<KnownHostKey> known;  // what known_hosts holds for host:port (Changed, OtherType)
    QString knownHostsFile;
    QString detail;  // for Error: libssh's text
};

struct HostKeyDecision
{
    enum class Action { Proceed, Ask, Refuse };
    Action action = Action::Refuse;
    QString message;  // for Refuse: the whole error; for Ask: what the question is about
};

namespace HostKeyCheck {

HostKeyDecision decide(const HostKeyFacts &facts);
// The error when an unknown host's key was not accepted. `note` (SshPromptAnswer::note): when no
// person was asked, what to do instead, e.g. the CLI's "re-run with --accept-new-host-key"; empty
// when a person said no. A changed key never gets here (decide() refuses it, naming how to
// remove the old entry), so nothing here suggests trusting it.
QString refusedByUser(const HostKeyFacts &facts, const QString &note = {});
// Empty when `path` does not exist or can be read; else why a known_hosts file that exists cannot
// be read ("FILE exists but cannot be read: Permission denied ..."). libssh takes such a file for
// an absent one, which would make a known host look new: SshSession refuses instead.
QString unreadableKnownHosts(const QString &path);
// "host:port", as errors name a target.
QString target(const QString &host, int port);
// How known_hosts spells the host: "host" on port 22, else "[host]:port".
QString knownHostsName(const QString &host, int port);

}  // namespace HostKeyCheck

}  // namespace ptwb
