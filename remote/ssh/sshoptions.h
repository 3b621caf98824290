#pragma once

#include "prompts.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace ptwb {

// What to run on the far end: files to upload first, then one command.
struct SshLaunch
{
    struct File
    {
        QString localPath;
        QString name;  // the file name on the device
    };
    // Uploaded by SFTP into one content-addressed directory, CACHE/<sha256>/<name> (see
    // docs/ssh.md). Empty: nothing is uploaded.
    QList<File> files;
    // The command, as separate tokens; each is shell-quoted. The text {dir} in a token is
    // replaced with the absolute remote directory the files went to.
    QStringList argv;
};

struct SshOptions
{
    QString host;  // a name or address; a Host alias of the ssh config works too
    int port = 0;  // 0: the ssh config's Port, else 22
    QString user;  // empty: the ssh config's User, else the local user name
    int connectTimeoutMs = 10000;  // TCP connect and every blocking SSH exchange
    // Empty: the ssh config's UserKnownHostsFile, else ~/.ssh/known_hosts.
    QString knownHostsPath;
    // Empty: ~/.ssh/config. Only Hostname, User, Port, IdentityFile and UserKnownHostsFile are
    // taken from it; nothing in it (StrictHostKeyChecking included) changes host-key checks.
    QString configPath;
    bool readConfig = true;
    QStringList identityFiles;  // tried before the ssh config's and the default ones
    bool useDefaultIdentities = true;  // ~/.ssh/id_ed25519, id_ecdsa, id_rsa
    bool useAgent = true;  // ssh-agent, when SSH_AUTH_SOCK is set
    // Where uploads go on the device: relative to the remote home, or absolute.
    QString remoteCacheDir = QStringLiteral(".cache/powertrain-workbench/agent");
    SshLaunch launch;
    // A dead connection is reported once nothing came back for intervals x maxMissed
    // (15 s x 3 = 45 s by default).
    int keepaliveIntervalMs = 15000;
    int keepaliveMaxMissed = 3;
    std::shared_ptr<SshPrompts> prompts;  // null: RefusingSshPrompts
    QString description;  // empty: "user@host:port"
};

}  // namespace ptwb
