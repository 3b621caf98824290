#pragma once

#include "command.h"
#include "deviceendpoint.h"
#include "sweeplaunch.h"
#include "wire.h"

#include <functional>
#include <optional>

namespace ptwb {
struct Measurement;
struct SweepItem;
}  // namespace ptwb

// What `ptwb sweep`, `ptwb search` and `ptwb apply` share: the options and the request of a
// sweep, running one to its end, and applying a mode with the device-side revert.
namespace ptwb::cli {

// --db, --target, --workload, --minibatches, --run, --device, --resume, the simulator and SSH
// options and --progress.
void addSweepRunOptions(QCommandLineParser &parser, const QString &resumeHelp);

// The request those options describe (without a mode set); bad values name the option.
Expected<workflows::SweepRequest> sweepRunRequest(const QCommandLineParser &parser);

struct SweepOutcome
{
    qint64 sweepId = 0;
    bool complete = false;  // no mode pending in the store, and the sweep marked done
    QString summary;
    QString storeFailure;  // why the store could not be written, when that stopped the sweep
    double seconds = 0;
    double overheadPerModeSeconds = 0;
    int plannedReboots = 0;
};

// Plans (or finds the sweep to resume) and runs it to its end: its messages on stderr, with
// --progress a line per finished mode and at most one a second in between, and each recorded
// mode to `recorded` when given.
Expected<SweepOutcome>
runSweep(const QCommandLineParser &parser, const workflows::SweepRequest &request,
         const QVector<workflows::DeviceEndpoint> &devices, Store &store, Output &output,
         const std::function<void(const SweepItem &, const Measurement &)> &recorded = {});

// The window's applier without its countdown: arms the device-side revert (`seconds`, on a
// device whose clock runs `speed` times real time), applies, checks the mode over a new
// connection and confirms at once; its phases on stderr. Returns the mode it replaced.
// `byReboot`: a device that accepts lower clocks only until a reboot may be rebooted into a mode
// that raises one (ModeApplier::Options::allowReboot); without it such a mode is refused with a
// message naming --by-reboot.
Expected<PowerMode> applyWithRevert(const workflows::DeviceEndpoint &device, const PowerMode &mode,
                                    int seconds, double speed, Output &output,
                                    bool byReboot = false);

}  // namespace ptwb::cli
