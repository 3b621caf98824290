#pragma once

#include <QString>
#include <QVector>

namespace ptwb::ui {

// One device the Devices panel lists: the embedded simulated Jetson (target sim:KIND) or a real
// one over SSH (ssh://USER@HOST[:PORT], see DeviceTarget).
struct DeviceEntry
{
    QString name;  // what a person calls it: "Simulated Jetson AGX Orin", "lab orin"
    QString target;  // DeviceTarget text
    QString keyFile;  // SSH private key; empty: the SSH agent and the default keys

    bool simulated() const { return target.startsWith(QLatin1String("sim:")); }
    friend bool operator==(const DeviceEntry &a, const DeviceEntry &b)
    {
        return a.name == b.name && a.target == b.target && a.keyFile == b.keyFile;
    }
};

// The list as the panel shows it, persisted in QSettings (group "devices"). The simulated
// Jetsons are built in and always come first (AGX Orin at the top); only the real devices a
// person added are stored.
namespace DeviceList {

QVector<DeviceEntry> builtinEntries();
// Built-in entries, then the stored real ones (entries that no longer parse are skipped).
QVector<DeviceEntry> load();
// Stores the real (non-simulated) entries of `entries`, in order.
void save(const QVector<DeviceEntry> &entries);
// The target chosen last; sim:orin-agx on first run.
QString currentTarget();
void setCurrentTarget(const QString &target);

}  // namespace DeviceList

// What the Add device dialog collects, as typed.
struct DeviceFields
{
    QString name;
    QString host;
    QString port;  // text, so that "70000" can be refused with a message rather than clamped
    QString user;
    QString keyFile;
};

// The outcome of checking DeviceFields: the entry, or the first wrong field and why.
struct DeviceFieldsCheck
{
    bool ok = false;
    DeviceEntry entry;
    QString field;  // "name", "host", "port", "user" or "keyFile" when not ok
    QString message;  // names the field: "Port: 70000 is not between 1 and 65535."
};

// Checks the fields of a new SSH device: host non-empty without spaces, port 1..65535, a valid
// user name, a readable private key file when one is given (~ is expanded), and a target that
// `existing` does not already list. The name defaults to USER@HOST.
DeviceFieldsCheck checkDeviceFields(const DeviceFields &fields,
                                    const QVector<DeviceEntry> &existing = {});

}  // namespace ptwb::ui
