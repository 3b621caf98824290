#include "devicecommands.h"

#include "devicework.h"

#include "devicetargets.h"
#include "simulatorlauncher.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweeplaunch.h"

namespace ptwb::cli {

void SweepCommand::addOptions(QCommandLineParser &parser) const
{
    addSweepRunOptions(parser,
                       QStringLiteral("Go on with the newest sweep of this workload and "
                                      "device: only its pending modes are measured."));
    parser.addOption({QStringLiteral("modes"),
                      QStringLiteral("all, random:N, als:N (active learning adds modes up to "
                                     "N), grid:SPEC (e.g. grid:cores=even;cpu=every:2:2), "
                                     "search:gmd|bs:WATTS (see ptwb search) or cap:WATTS (with "
                                     "--batch-sizes: per batch, largest first, the GPU clock "
                                     "raised until the peak power passes the cap)."),
                      QStringLiteral("SET")});
    parser.addOption({QStringLiteral("repeats"),
                      QStringLiteral("Measurements of each mode (default 1)."), QStringLiteral("N"),
                      QStringLiteral("1")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of random:N (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("batch-sizes"),
                      QStringLiteral("Profile each mode at these minibatch sizes, in this order "
                                     "(e.g. 1,4,16,32,64; default: the run's own batch)."),
                      QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("inference"),
                      QStringLiteral("Profile the workload's inference (minibatches of requests) "
                                     "instead of its training; the store's workload then holds "
                                     "inference measurements only.")});
    parser.addOption({QStringLiteral("stop-after-failures"),
                      QStringLiteral("Stop the sweep (resumable with --resume) after K failed "
                                     "modes in a row; 0: never (default 3)."),
                      QStringLiteral("K"), QStringLiteral("3")});
}

int SweepCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("target"), QStringLiteral("workload")}, output,
                        &exitCode)) {
        return exitCode;
    }
    if (!parser.isSet(QStringLiteral("resume")) && !parser.isSet(QStringLiteral("modes")))
        return output.badUsage(QStringLiteral("sweep: --modes is required (or --resume)"));
    const Expected<QVector<workflows::DeviceEndpoint>> devices =
        targetDevices(parser, SimulatorOptions().speed, true);
    if (!devices)
        return output.fail(devices);
    Expected<workflows::SweepRequest> request = sweepRunRequest(parser);
    if (!request)
        return output.fail(request);
    request->modeSet = parser.value(QStringLiteral("modes"));
    bool ok = true;
    request->repeats = parser.value(QStringLiteral("repeats")).toInt(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--repeats: expected 1..100"));
    request->seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--seed: expected a non-negative integer"));
    const Expected<QVector<int>> batchSizes =
        SweepPlan::parseBatchSizes(parser.value(QStringLiteral("batch-sizes")));
    if (!batchSizes)
        return output.fail(batchSizes);
    request->batchSizes = *batchSizes;
    request->inference = parser.isSet(QStringLiteral("inference"));
    const QString stopAfter = parser.value(QStringLiteral("stop-after-failures"));
    request->stopAfterFailures = stopAfter.toInt(&ok);
    if (!ok || request->stopAfterFailures < 0) {
        return output.badUsage(QStringLiteral("--stop-after-failures: '%1' is not a count; "
                                              "expected 0 (never stop) or more failed modes in "
                                              "a row")
                                   .arg(stopAfter));
    }

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    const Expected<SweepOutcome> outcome = runSweep(parser, *request, *devices, **store, output);
    if (!outcome)
        return output.fail(outcome);
    const qint64 sweepId = outcome->sweepId;
    const bool complete = outcome->complete;
    const QString &summary = outcome->summary;
    Expected<SweepRecord> record = SweepStore(**store).load(sweepId);
    if (!record)
        return output.fail(record);
    const int done = record->count(SweepItem::State::Done);
    const int failed = record->count(SweepItem::State::Failed);
    const int pending = record->count(SweepItem::State::Pending);
    if (output.json()) {
        output.object({{QStringLiteral("sweep"), double(sweepId)},
                       {QStringLiteral("planned"), int(record->items.size())},
                       {QStringLiteral("done"), done},
                       {QStringLiteral("failed"), failed},
                       {QStringLiteral("pending"), pending},
                       {QStringLiteral("seconds"), outcome->seconds},
                       {QStringLiteral("overhead_per_mode_s"), outcome->overheadPerModeSeconds},
                       {QStringLiteral("planned_reboots"), outcome->plannedReboots},
                       {QStringLiteral("store_failure"), outcome->storeFailure}});
    } else {
        // What is pending is measured by the same command with --resume.
        output.line(pending > 0 ? summary + QStringLiteral(" (run again with --resume)") : summary);
    }
    // Every mode failed: the sweep is complete, but no work was done (exit 1, DESIGN.md).
    const bool nothingMeasured = done == 0 && failed > 0;
    return complete && !nothingMeasured ? kExitOk : kExitFailed;
}

void ApplyCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption({QStringLiteral("target"),
                      QStringLiteral("Device: sim:orin-agx (the simulated Jetson) or "
                                     "ssh://USER@HOST[:PORT]."),
                      QStringLiteral("TARGET")});
    parser.addOption({QStringLiteral("mode"),
                      QStringLiteral("Mode to apply: 12/2201600/1300500000/3199000000, the "
                                     "underscore or the short form (12c/2.20C/1.30G/3.20M)."),
                      QStringLiteral("MODE")});
    parser.addOption({QStringLiteral("confirm-within"),
                      QStringLiteral("Seconds the device waits for the confirmation over a new "
                                     "connection before it reverts by itself (default 30)."),
                      QStringLiteral("S"), QStringLiteral("30")});
    parser.addOption({QStringLiteral("by-reboot"),
                      QStringLiteral("On a device that accepts lower clocks only until a reboot: "
                                     "reboot it into a mode that raises one. Unconfirmed, it "
                                     "reboots back to the previous mode by itself.")});
    addSimulatorOptions(parser);
    addSshOptions(parser);
}

int ApplyCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("target"), QStringLiteral("mode")}, output,
                        &exitCode)) {
        return exitCode;
    }
    bool ok = false;
    const int seconds = parser.value(QStringLiteral("confirm-within")).toInt(&ok);
    if (!ok || seconds < 5 || seconds > 3600)
        return output.badUsage(QStringLiteral("--confirm-within: expected 5..3600 seconds"));
    const Expected<TargetAndMode> target = oneTargetAndMode(parser, 1.0, name());
    if (!target)
        return output.fail(target);
    const workflows::DeviceEndpoint &device = target->device;
    const PowerMode &mode = target->mode;
    // The deadline as the desktop sees it: a simulated device may run its clock faster (apply
    // runs no workload, so its simulated device keeps real time unless told otherwise).
    const double speed = parser.isSet(QStringLiteral("sim-speed"))
        ? parser.value(QStringLiteral("sim-speed")).toDouble()
        : 1.0;

    const Expected<PowerMode> previousMode = applyWithRevert(
        device, mode, seconds, speed, output, parser.isSet(QStringLiteral("by-reboot")));
    if (!previousMode)
        return output.fail(previousMode);
    const PowerMode &previous = *previousMode;
    if (output.json()) {
        output.object({{QStringLiteral("mode"), mode.toCanonical()},
                       {QStringLiteral("previous"), previous.toCanonical()},
                       {QStringLiteral("confirmed"), true},
                       {QStringLiteral("changed"), previous != mode},
                       {QStringLiteral("target"), device.address}});
    } else if (previous == mode) {
        output.line(QStringLiteral("%1 is already in %2").arg(device.address, mode.toCanonical()));
    } else {
        output.line(QStringLiteral("%1 now runs %2 (%3), confirmed")
                        .arg(device.address, mode.toCanonical(), mode.toShort()));
    }
    return kExitOk;
}

}  // namespace ptwb::cli
