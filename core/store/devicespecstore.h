#pragma once

#include "modes/devicespec.h"
#include "util/expected.h"

#include <QString>
#include <QVector>

#include <optional>

namespace ptwb {

class Store;

// The specs connected devices reported (issue 22; tables device_specs and device_spec_history,
// schema version 9). A spec is stored once under its id, whichever devices reported it; each
// device keeps every spec it has had, so measurements taken under one stay with it when an
// upgrade changes the tables.
class DeviceSpecStore
{
public:
    struct Seen
    {
        QString specId;
        bool firstTimeForDevice = false;  // the device never reported this spec before
        // The spec the device reported last before this one, when that was another (its tables
        // changed: a JetPack upgrade), and when it was last seen.
        std::optional<QString> previousSpecId;
        QString previousLastSeen;
    };
    struct Entry
    {
        QString specId;
        QString family;
        QString model;
        QString l4t;
        QString firstSeen;
        QString lastSeen;
    };

    explicit DeviceSpecStore(Store &store)
        : m_store(store)
    {
    }

    // Records that `device` (its name in the Devices list) reported `spec` now; in one
    // transaction. `family` is the spec's family id ("orin-nano-super").
    Expected<Seen> recordSeen(const QString &device, const DeviceSpec &spec, const QString &family,
                              const QString &model, const QString &l4t);
    // A stored spec, read back through DeviceSpec::fromJson.
    Expected<DeviceSpec> load(const QString &specId);
    // Makes every stored spec known to DeviceSpec::lookup (Store::open calls it): a device's
    // measurements are read with its own tables in a later run, device connected or not.
    Status rememberAll();
    // The specs `device` has reported, the most recently seen first.
    Expected<QVector<Entry>> history(const QString &device);

private:
    Store &m_store;
};

}  // namespace ptwb
