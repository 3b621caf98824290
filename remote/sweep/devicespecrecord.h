#pragma once

#include <QString>

namespace ptwb {

class Store;
struct DeviceInfo;

// Records the spec a connected device reports about itself (issue 22: its family, tables and
// presets, deviceSpecFromReport) in the store under `device` (its address), each time it
// connects. Returns what a person should be told, empty when nothing: that its tables changed
// since it was last seen (a JetPack upgrade; both specs are kept, and what was measured under
// each stays with it), or why no spec could be built or stored (the sweep goes on with its
// planned table either way).
QString recordDeviceSpec(Store &store, const QString &device, const DeviceInfo &info);

}  // namespace ptwb
