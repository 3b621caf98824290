#include "devicelist.h"

#include "devicetarget.h"
#include "modes/devicespec.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>

#include <utility>

namespace ptwb::ui {

namespace {

const QString kGroup = QStringLiteral("devices");
const QString kDefaultTarget = QStringLiteral("sim:orin-agx");

QString tr(const char *text)
{
    return QCoreApplication::translate("ptwb::ui::DeviceList", text);
}

}  // namespace

QVector<DeviceEntry> DeviceList::builtinEntries()
{
    QVector<DeviceEntry> entries;
    // AGX Orin first: it is the one preselected on first run. The rest follow in the order
    // builtinIds() gives, so a table added to resources/devices appears without an edit here.
    QStringList kinds = DeviceSpec::builtinIds();
    kinds.removeAll(QStringLiteral("orin-agx"));
    kinds.prepend(QStringLiteral("orin-agx"));
    for (const QString &kind : std::as_const(kinds)) {
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(kind);
        if (!spec)
            continue;
        entries.append(
            {tr("Simulated %1").arg(spec->name()), QStringLiteral("sim:") + kind, QString()});
    }
    return entries;
}

QVector<DeviceEntry> DeviceList::load()
{
    QVector<DeviceEntry> entries = builtinEntries();
    QSettings settings;
    settings.beginGroup(kGroup);
    const int count = settings.beginReadArray(QStringLiteral("entries"));
    for (int i = 0; i < count; ++i) {
        settings.setArrayIndex(i);
        DeviceEntry entry;
        entry.name = settings.value(QStringLiteral("name")).toString();
        entry.target = settings.value(QStringLiteral("target")).toString();
        entry.keyFile = settings.value(QStringLiteral("keyFile")).toString();
        // A hand-edited or stale entry must not take the list down.
        if (entry.simulated() || !DeviceTarget::parse(entry.target))
            continue;
        if (entry.name.isEmpty())
            entry.name = DeviceTarget::parse(entry.target)->displayName();
        entries.append(entry);
    }
    settings.endArray();
    return entries;
}

void DeviceList::save(const QVector<DeviceEntry> &entries)
{
    QSettings settings;
    settings.beginGroup(kGroup);
    settings.remove(QStringLiteral("entries"));
    settings.beginWriteArray(QStringLiteral("entries"));
    int index = 0;
    for (const DeviceEntry &entry : entries) {
        if (entry.simulated())
            continue;
        settings.setArrayIndex(index++);
        settings.setValue(QStringLiteral("name"), entry.name);
        settings.setValue(QStringLiteral("target"), entry.target);
        settings.setValue(QStringLiteral("keyFile"), entry.keyFile);
    }
    settings.endArray();
}

QString DeviceList::currentTarget()
{
    return QSettings().value(kGroup + QStringLiteral("/current"), kDefaultTarget).toString();
}

void DeviceList::setCurrentTarget(const QString &target)
{
    QSettings().setValue(kGroup + QStringLiteral("/current"), target);
}

DeviceFieldsCheck checkDeviceFields(const DeviceFields &fields,
                                    const QVector<DeviceEntry> &existing)
{
    DeviceFieldsCheck check;
    const auto refuse = [&check](const QString &field, const QString &message) {
        check.field = field;
        check.message = message;
        return check;
    };

    const QString host = fields.host.trimmed();
    if (host.isEmpty())
        return refuse(QStringLiteral("host"), tr("Host: enter the device's name or address."));
    static const QRegularExpression space(QStringLiteral("\\s"));
    if (host.contains(space))
        return refuse(QStringLiteral("host"), tr("Host: '%1' contains a space.").arg(host));

    const QString portText = fields.port.trimmed();
    bool isNumber = true;
    const int port = portText.isEmpty() ? 22 : portText.toInt(&isNumber);
    if (!isNumber || port < 1 || port > 65535) {
        return refuse(QStringLiteral("port"),
                      tr("Port: '%1' is not a number between 1 and 65535.").arg(portText));
    }

    const QString user = fields.user.trimmed();
    if (user.isEmpty())
        return refuse(QStringLiteral("user"), tr("User: enter the login name on the device."));
    if (!DeviceTarget::isValidUser(user)) {
        return refuse(
            QStringLiteral("user"),
            tr("User: '%1' is not a valid user name (letters, digits, '.', '_', '-').").arg(user));
    }

    QString keyFile = fields.keyFile.trimmed();
    if (keyFile == QLatin1String("~") || keyFile.startsWith(QLatin1String("~/")))
        keyFile = QDir::homePath() + keyFile.mid(1);
    if (!keyFile.isEmpty()) {
        const QFileInfo info(keyFile);
        if (!info.exists())
            return refuse(QStringLiteral("keyFile"),
                          tr("Key file: %1 does not exist.").arg(keyFile));
        if (!info.isFile() || !info.isReadable()) {
            return refuse(QStringLiteral("keyFile"),
                          tr("Key file: %1 is not a readable file.").arg(keyFile));
        }
        if (keyFile.endsWith(QLatin1String(".pub"))) {
            return refuse(QStringLiteral("keyFile"),
                          tr("Key file: %1 is the public key; choose the private key next to it.")
                              .arg(keyFile));
        }
        keyFile = info.absoluteFilePath();
    }

    DeviceTarget target;
    target.kind = DeviceTarget::Kind::Ssh;
    target.user = user;
    target.host = host;
    target.port = port;
    // The parser has the last word: what is stored must read back as the same device.
    const Expected<DeviceTarget> parsed = DeviceTarget::parse(target.toString());
    if (!parsed)
        return refuse(QStringLiteral("host"), tr("Host: %1").arg(parsed.error()));
    const QString targetText = parsed->toString();
    for (const DeviceEntry &entry : existing) {
        if (entry.target == targetText) {
            return refuse(
                QStringLiteral("host"),
                tr("Host: %1 is already listed as “%2”.").arg(parsed->displayName(), entry.name));
        }
    }

    check.ok = true;
    check.entry.target = targetText;
    check.entry.name =
        fields.name.trimmed().isEmpty() ? parsed->displayName() : fields.name.trimmed();
    check.entry.keyFile = keyFile;
    return check;
}

}  // namespace ptwb::ui
