#include "devicecommands.h"

#include "deviceclient.h"
#include "devicetargets.h"
#include "modeapplier.h"
#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "simulatorlauncher.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweeplaunch.h"
#include "sweeprunner.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>

namespace ptwb::cli {

namespace {

// --run: builtin:NAME[:BATCH] or a JSON workload; empty: the workflow's default (the built-in
// workload of the same name).
Expected<std::optional<WorkloadSpec>> parseRun(const QCommandLineParser &parser)
{
    using Result = Expected<std::optional<WorkloadSpec>>;
    const QString run = parser.value(QStringLiteral("run"));
    if (run.isEmpty())
        return std::optional<WorkloadSpec>();
    if (run.startsWith(QLatin1Char('{'))) {
        const QJsonDocument document = QJsonDocument::fromJson(run.toUtf8());
        Expected<WorkloadSpec> spec = WorkloadSpec::fromJson(document.object());
        if (!spec)
            return Result::badInput(InputField::Run, spec.error());
        return std::optional<WorkloadSpec>(*spec);
    }
    const QStringList parts = run.split(QLatin1Char(':'));
    WorkloadSpec spec;
    bool ok = true;
    if (parts.size() >= 2 && parts.size() <= 3 && parts[0] == QLatin1String("builtin")) {
        spec.builtin = parts[1];
        if (parts.size() == 3)
            spec.batchSize = parts[2].toInt(&ok);
    }
    if (spec.builtin.isEmpty() || !ok || spec.batchSize < 1) {
        return Result::badInput(
            InputField::Run,
            QStringLiteral("'%1': expected builtin:NAME[:BATCH] or a JSON workload").arg(run));
    }
    return std::optional<WorkloadSpec>(spec);
}

}  // namespace

void SweepCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("target"),
                      QStringLiteral("Device(s): sim:orin-agx (the simulated Jetson) or "
                                     "ssh://USER@HOST[:PORT]; several separated by commas for a "
                                     "fleet sharing the sweep."),
                      QStringLiteral("TARGET")});
    parser.addOption({QStringLiteral("workload"),
                      QStringLiteral("Workload name in the store, e.g. mobilenet_v3."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("modes"),
                      QStringLiteral("all, random:N, als:N (active learning adds modes up to "
                                     "N) or grid:SPEC (e.g. grid:cores=even;cpu=every:2:2)."),
                      QStringLiteral("SET")});
    parser.addOption({QStringLiteral("minibatches"),
                      QStringLiteral("Minibatches per mode, the first discarded (default 40)."),
                      QStringLiteral("N"), QStringLiteral("40")});
    parser.addOption({QStringLiteral("repeats"),
                      QStringLiteral("Measurements of each mode (default 1)."), QStringLiteral("N"),
                      QStringLiteral("1")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of random:N (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("run"),
                      QStringLiteral("What the device runs: builtin:NAME[:BATCH] (default: the "
                                     "workload's name when built in) or a JSON workload "
                                     "{\"kind\":\"command\",\"argv\":[...]}."),
                      QStringLiteral("WORKLOAD")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device name in the store (default: the target's kind, "
                                     "or simulated-KIND for a simulated one)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("resume"),
                      QStringLiteral("Go on with the newest sweep of this workload and device: "
                                     "only its pending modes are measured.")});
    addSimulatorOptions(parser);
    addSshOptions(parser);
    parser.addOption({QStringLiteral("progress"),
                      QStringLiteral("Print progress (modes done, time left, live power) on "
                                     "stderr.")});
}

int SweepCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("target"), QStringLiteral("workload")}, output,
                        &exitCode)) {
        return exitCode;
    }
    const bool resume = parser.isSet(QStringLiteral("resume"));
    if (!resume && !parser.isSet(QStringLiteral("modes")))
        return output.badUsage(QStringLiteral("sweep: --modes is required (or --resume)"));
    const Expected<QVector<workflows::DeviceEndpoint>> devices =
        targetDevices(parser, SimulatorOptions().speed);
    if (!devices)
        return output.fail(devices);
    workflows::SweepRequest request;
    request.workload = parser.value(QStringLiteral("workload"));
    request.modeSet = parser.value(QStringLiteral("modes"));
    request.deviceName = parser.value(QStringLiteral("device"));
    request.resume = resume;
    bool ok = true;
    request.minibatches = parser.value(QStringLiteral("minibatches")).toInt(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--minibatches: expected 2..100000"));
    request.repeats = parser.value(QStringLiteral("repeats")).toInt(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--repeats: expected 1..100"));
    request.seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--seed: expected a non-negative integer"));
    const Expected<std::optional<WorkloadSpec>> run = parseRun(parser);
    if (!run)
        return output.fail(run);
    request.run = *run;

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    const Expected<qint64> planned = workflows::planSweep(**store, request, *devices);
    if (!planned)
        return output.fail(planned);
    const qint64 sweepId = *planned;
    Expected<std::unique_ptr<SweepRunner>> launched =
        workflows::sweepRunner(**store, sweepId, *devices);
    if (!launched)
        return output.fail(launched);
    SweepRunner &runner = **launched;
    QEventLoop loop;
    bool complete = false;
    QString summary;
    QObject::connect(&runner, &SweepRunner::message, &loop,
                     [&output](const QString &text) { output.err() << text << Qt::endl; });
    if (parser.isSet(QStringLiteral("progress"))) {
        // A line when a mode finishes, and at most one a second in between (live power).
        auto lastLine = std::make_shared<QElapsedTimer>();
        auto lastFinished = std::make_shared<int>(-1);
        QObject::connect(
            &runner, &SweepRunner::progress, &loop,
            [&output, lastLine, lastFinished](const SweepProgress &p) {
                const int finished = p.done + p.failed;
                if (finished == *lastFinished && lastLine->isValid() && lastLine->elapsed() < 1000)
                    return;
                *lastFinished = finished;
                lastLine->start();
                output.err() << QStringLiteral("%1/%2 done, %3 failed, %4 s, %5 left, %6 W on %7%8")
                                    .arg(p.done)
                                    .arg(p.total)
                                    .arg(p.failed)
                                    .arg(p.elapsedSeconds, 0, 'f', 1)
                                    .arg(p.remainingSeconds < 0
                                             ? QStringLiteral("?")
                                             : QStringLiteral("%1 s").arg(p.remainingSeconds, 0,
                                                                          'f', 0))
                                    .arg(p.livePowerW, 0, 'f', 1)
                                    .arg(p.target)
                                    .arg(p.currentMode.isEmpty()
                                             ? QString()
                                             : QStringLiteral(", measuring ") + p.currentMode)
                             << Qt::endl;
            });
    }
    QObject::connect(&runner, &SweepRunner::finished, &loop, [&](bool ok, const QString &text) {
        complete = ok;
        summary = text;
        loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    QMetaObject::invokeMethod(&runner, &SweepRunner::start, Qt::QueuedConnection);
    loop.exec();

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
                       {QStringLiteral("seconds"), clock.nsecsElapsed() / 1e9},
                       {QStringLiteral("overhead_per_mode_s"), runner.overheadPerModeSeconds()},
                       {QStringLiteral("planned_reboots"), runner.plannedReboots()}});
    } else {
        // What is pending is measured by the same command with --resume.
        output.line(pending > 0 ? summary + QStringLiteral(" (run again with --resume)") : summary);
    }
    return complete ? kExitOk : kExitFailed;
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
    const Expected<QVector<workflows::DeviceEndpoint>> targets = targetDevices(parser, 1.0);
    if (!targets)
        return output.fail(targets);
    if (targets->size() != 1)
        return output.badUsage(QStringLiteral("--target: apply takes one device"));
    const workflows::DeviceEndpoint &device = targets->first();
    Expected<DeviceSpec> spec = DeviceSpec::builtin(device.kind);
    if (!spec)
        return output.fail(spec.error(), ErrorKind::BadInput);
    Expected<PowerMode> mode = ModeSpace(*spec).parse(parser.value(QStringLiteral("mode")));
    if (!mode)
        return output.fail(QStringLiteral("--mode: %1").arg(mode.error()), ErrorKind::BadInput);
    // The deadline as the desktop sees it: a simulated device may run its clock faster (apply
    // runs no workload, so its simulated device keeps real time unless told otherwise).
    const double speed = parser.isSet(QStringLiteral("sim-speed"))
        ? parser.value(QStringLiteral("sim-speed")).toDouble()
        : 1.0;

    // The window's applier without its countdown: arm the device-side revert, apply, check the
    // mode over a new connection and confirm at once. A mode that cuts the device off cannot be
    // confirmed; the device goes back by itself at the deadline, and the applier looks.
    ModeApplier::Options options;
    options.keepAfterSeconds = 0;
    options.revertMarginSeconds = seconds;
    options.deviceSpeed = speed;
    ModeApplier applier(device.connect, options);
    bool kept = false;
    QString message;
    QEventLoop loop;
    QObject::connect(&applier, &ModeApplier::phaseChanged,
                     [&output](ModeApplier::Phase phase, const QString &text) {
                         if (phase != ModeApplier::Phase::Done)
                             output.err() << text << Qt::endl;
                     });
    QObject::connect(&applier, &ModeApplier::finished, &loop,
                     [&](bool confirmed, const QString &text) {
                         kept = confirmed;
                         message = text;
                         loop.quit();
                     });
    applier.start(*mode);
    if (applier.phase() != ModeApplier::Phase::Done)
        loop.exec();

    const PowerMode &previous = applier.previousMode();
    if (!kept)
        return output.fail(QStringLiteral("%1: %2").arg(device.address, message),
                           ErrorKind::Failed);
    if (output.json()) {
        output.object({{QStringLiteral("mode"), mode->toCanonical()},
                       {QStringLiteral("previous"), previous.toCanonical()},
                       {QStringLiteral("confirmed"), true},
                       {QStringLiteral("changed"), previous != *mode},
                       {QStringLiteral("target"), device.address}});
    } else if (previous == *mode) {
        output.line(QStringLiteral("%1 is already in %2").arg(device.address, mode->toCanonical()));
    } else {
        output.line(QStringLiteral("%1 now runs %2 (%3), confirmed")
                        .arg(device.address, mode->toCanonical(), mode->toShort()));
    }
    return kExitOk;
}

}  // namespace ptwb::cli
