#pragma once

#include "deviceendpoint.h"
#include "util/expected.h"
#include "wire.h"

// Learning what a device is before anything is planned for it: connect, read its hello, let
// the connection go. For a real SSH device whose kind nobody gave, the sweep, search and apply
// of `ptwb` plan from the device's own tables this way (issue 22); the window learns the same
// from its live connection (DeviceConnection).
namespace ptwb::workflows {

// Runs an event loop of its own until the device has said hello or `timeoutMs` passed: call it
// from a thread that may wait (the command line, a worker), never from the GUI thread.
Expected<DeviceInfo> probeDevice(const DeviceEndpoint &device, int timeoutMs = 120000);

// `devices` with each real device's kind as it reports it: the kind of its own tables
// (DeviceInfo::kind), its store name that kind when none was given. A kind given beforehand
// (--kind) names the family expected: a device of another family is refused, one of that family
// is planned in its own tables, and one that cannot be reached now in the given kind's table. A
// device that cannot be driven is refused with what it is
// missing; a fleet must still be of one kind. Simulated devices are left as their targets say.
Expected<QVector<DeviceEndpoint>> withReportedKinds(QVector<DeviceEndpoint> devices,
                                                    int timeoutMs = 120000);

}  // namespace ptwb::workflows
