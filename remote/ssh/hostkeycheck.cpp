#include "hostkeycheck.h"

#include <QFile>
#include <QFileInfo>
#include <QStringList>

namespace ptwb::HostKeyCheck {

namespace {

QString knownList(const QList<KnownHostKey> &known)
{
    QStringList parts;
    for (const KnownHostKey &key : known)
        parts << QStringLiteral("%1 %2").arg(key.type, key.fingerprint);
    return parts.isEmpty() ? QStringLiteral("(could not be read)")
                           : parts.join(QStringLiteral(", "));
}

QString removeHint(const HostKeyFacts &facts)
{
    return QStringLiteral("If you know the device was reinstalled or its key replaced, check the "
                          "new fingerprint on the device (ssh-keygen -lf "
                          "/etc/ssh/ssh_host_ed25519_key.pub) and remove the old entry with: "
                          "ssh-keygen -R '%1' -f '%2'")
        .arg(knownHostsName(facts.host, facts.port), facts.knownHostsFile);
}

}  // namespace

QString unreadableKnownHosts(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())  // a link that leads nowhere readable counts
        return {};
    QFile file(path);
    if (!info.isDir() && file.open(QIODevice::ReadOnly))
        return {};
    return QStringLiteral("%1 exists but cannot be read (%2), so whether it knows this host "
                          "cannot be told; nothing was asked or written. Make it readable (or "
                          "move it away) and connect again")
        .arg(path, info.isDir() ? QStringLiteral("it is a directory") : file.errorString());
}

QString target(const QString &host, int port)
{
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

QString knownHostsName(const QString &host, int port)
{
    if (port == 22)
        return host;
    return QStringLiteral("[%1]:%2").arg(host).arg(port);
}

HostKeyDecision decide(const HostKeyFacts &facts)
{
    using State = HostKeyFacts::State;
    using Action = HostKeyDecision::Action;
    const QString where = target(facts.host, facts.port);
    switch (facts.state) {
    case State::Known:
        return {Action::Proceed, {}};
    case State::Unknown:
    case State::NoKnownHostsFile:
        return {Action::Ask,
                QStringLiteral("%1 is not a known host (%2). It offers the %3 key %4.")
                    .arg(where, facts.knownHostsFile, facts.keyType, facts.fingerprint)};
    case State::Changed:
        return {Action::Refuse,
                QStringLiteral("the host key of %1 has CHANGED, not connecting. The server offers "
                               "%2 %3; %4 holds %5 for it. Someone may be intercepting the "
                               "connection, or the device was reinstalled. %6")
                    .arg(where, facts.keyType, facts.fingerprint, facts.knownHostsFile,
                         knownList(facts.known), removeHint(facts))};
    case State::OtherType:
        return {Action::Refuse,
                QStringLiteral("the host key of %1 is of another type than the one known, not "
                               "connecting. The server offers %2 %3; %4 holds only %5 for it. "
                               "Someone may be intercepting the connection, or the device's "
                               "keys were regenerated. %6")
                    .arg(where, facts.keyType, facts.fingerprint, facts.knownHostsFile,
                         knownList(facts.known), removeHint(facts))};
    case State::Error:
        break;
    }
    return {Action::Refuse,
            QStringLiteral("cannot check the host key of %1 against %2: %3")
                .arg(where, facts.knownHostsFile,
                     facts.detail.isEmpty() ? QStringLiteral("unknown error") : facts.detail)};
}

QString refusedByUser(const HostKeyFacts &facts, const QString &note)
{
    const QString what = QStringLiteral("the host key of %1 (%2 %3) was not accepted; not "
                                        "connecting. %1 is not in %4 yet")
                             .arg(target(facts.host, facts.port), facts.keyType, facts.fingerprint,
                                  facts.knownHostsFile);
    if (!note.isEmpty())
        return QStringLiteral("%1, and it could not be confirmed: %2").arg(what, note);
    return QStringLiteral("%1 and the key was refused. Check the fingerprint on the device "
                          "(ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), then connect "
                          "again and accept it")
        .arg(what);
}

}  // namespace ptwb::HostKeyCheck
