#include "devicetarget.h"

#include "modes/devicespec.h"

#include <QRegularExpression>
#include <QUrl>

namespace ptwb {

namespace {

const QString kExpected = QStringLiteral("expected sim:KIND (KIND one of %1) or "
                                         "ssh://USER@HOST[:PORT]");

}  // namespace

Expected<DeviceTarget> DeviceTarget::parse(const QString &input)
{
    const QString text = input.trimmed();
    // Error messages echo the target, but never a password someone typed into it.
    QUrl asUrl(text);
    const QString shown = asUrl.password().isEmpty()
        ? text
        : asUrl.toString(QUrl::RemovePassword | QUrl::FullyEncoded);
    const QString kinds = DeviceSpec::builtinIds().join(QStringLiteral(", "));
    const auto bad = [&](const QString &what) {
        return Expected<DeviceTarget>::failure(
            QStringLiteral("target '%1': %2; %3").arg(shown, what, kExpected.arg(kinds)),
            ErrorKind::BadInput);
    };
    DeviceTarget target;
    if (text.startsWith(QLatin1String("sim:"))) {
        target.kind = Kind::Simulated;
        target.deviceKind = text.mid(4);
        if (!DeviceSpec::builtinIds().contains(target.deviceKind))
            return bad(
                QStringLiteral("'%1' is not a simulated device kind").arg(target.deviceKind));
        return target;
    }
    if (!text.startsWith(QLatin1String("ssh://")))
        return bad(QStringLiteral("unknown scheme"));

    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty())
        return bad(QStringLiteral("no valid host"));
    if (url.userName().isEmpty())
        return bad(QStringLiteral("no user name"));
    if (!url.password().isEmpty())
        return bad(QStringLiteral("a password does not belong in a target; the workbench asks "
                                  "for it when needed"));
    if (!url.path().isEmpty() || url.hasQuery() || url.hasFragment())
        return bad(QStringLiteral("unexpected path, query or fragment"));
    if (!isValidUser(url.userName()))
        return bad(QStringLiteral("'%1' is not a valid user name").arg(url.userName()));
    target.kind = Kind::Ssh;
    target.user = url.userName();
    target.host = url.host();
    target.port = url.port(22);
    if (target.port < 1 || target.port > 65535)
        return bad(QStringLiteral("port out of range"));
    return target;
}

bool DeviceTarget::isValidUser(const QString &user)
{
    static const QRegularExpression userPattern(QStringLiteral("^[A-Za-z0-9._][A-Za-z0-9._-]*$"));
    return userPattern.match(user).hasMatch();
}

QString DeviceTarget::toString() const
{
    if (kind == Kind::Simulated)
        return QStringLiteral("sim:%1").arg(deviceKind);
    const QString host =
        this->host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(this->host) : this->host;
    return port == 22 ? QStringLiteral("ssh://%1@%2").arg(user, host)
                      : QStringLiteral("ssh://%1@%2:%3").arg(user, host).arg(port);
}

QString DeviceTarget::displayName() const
{
    if (kind == Kind::Simulated) {
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(deviceKind);
        return QStringLiteral("simulated %1 (%2)")
            .arg(spec ? spec->name() : deviceKind, deviceKind);
    }
    return port == 22 ? QStringLiteral("%1@%2").arg(user, host)
                      : QStringLiteral("%1@%2:%3").arg(user, host).arg(port);
}

}  // namespace ptwb
