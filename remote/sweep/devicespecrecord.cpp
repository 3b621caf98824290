#include "devicespecrecord.h"

#include "modes/devicereport.h"
#include "modes/jetsonfamily.h"
#include "store/devicespecstore.h"
#include "wire.h"

namespace ptwb {

QString recordDeviceSpec(Store &store, const QString &device, const DeviceInfo &info)
{
    const DeviceReport report = info.report();
    const Expected<DeviceSpec> spec = deviceSpecFromReport(report);
    if (!spec)
        return QStringLiteral("%1: no spec of its own (%2)").arg(device, spec.error());
    const Expected<JetsonFamily> family =
        jetsonFamilyOf(report.model, spec->values(Dimension::Gpu).back());
    const Expected<DeviceSpecStore::Seen> seen = DeviceSpecStore(store).recordSeen(
        device, *spec, family ? family->id : QString(), report.model, report.l4t);
    if (!seen)
        return QStringLiteral("%1: its spec %2 could not be stored (%3)")
            .arg(device, spec->id(), seen.error());
    if (!seen->previousSpecId)
        return {};
    return QStringLiteral("%1: its tables changed since it was last seen (%2): spec %3, now %4 "
                          "(L4T %5); both are kept, and what was measured under each stays "
                          "with it")
        .arg(device, seen->previousLastSeen, *seen->previousSpecId, seen->specId,
             report.l4t.isEmpty() ? QStringLiteral("unknown") : report.l4t);
}

}  // namespace ptwb
