#include "devicecommands.h"

#include "deviceclient.h"
#include "devicetarget.h"
#include "localprocesstransport.h"
#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "simulatorlauncher.h"
#include "sshlaunch.h"
#include "sshtransport.h"
#include "terminalprompts.h"
#include "optimize/activeselection.h"
#include "predict/powermodel.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweeprunner.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QThread>
#include <QJsonDocument>

namespace ptwb::cli {

namespace {

// The built-in workloads the agent (and the simulator) know by name.
const QStringList kBuiltinWorkloads {QStringLiteral("resnet18"), QStringLiteral("mobilenet_v3")};

Expected<WorkloadSpec> workloadToRun(const QCommandLineParser &parser, const QString &workload)
{
    QString run = parser.value(QStringLiteral("run"));
    if (run.isEmpty()) {
        if (!kBuiltinWorkloads.contains(workload)) {
            return Expected<WorkloadSpec>::failure(
                QStringLiteral("--run: workload '%1' is not built in (%2); say what to run with "
                               "--run builtin:NAME[:BATCH] or --run '{\"kind\":\"command\","
                               "\"argv\":[...]}'")
                    .arg(workload, kBuiltinWorkloads.join(QStringLiteral(", "))),
                ErrorKind::BadInput);
        }
        run = QStringLiteral("builtin:") + workload;
    }
    if (run.startsWith(QLatin1Char('{'))) {
        const QJsonDocument document = QJsonDocument::fromJson(run.toUtf8());
        Expected<WorkloadSpec> spec = WorkloadSpec::fromJson(document.object());
        if (!spec)
            return Expected<WorkloadSpec>::failure(QStringLiteral("--run: %1").arg(spec.error()),
                                                   ErrorKind::BadInput);
        return spec;
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
        return Expected<WorkloadSpec>::failure(
            QStringLiteral("--run '%1': expected builtin:NAME[:BATCH] or a JSON workload").arg(run),
            ErrorKind::BadInput);
    }
    return spec;
}

void addSimulatorOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("sim-state"),
                      QStringLiteral("Simulated device: its state directory."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("sim-speed"),
                      QStringLiteral("Simulated device: device seconds per second (default 50)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("sim-fault"),
                      QStringLiteral("Simulated device: inject a fault (reject:FIELD=VALUE, "
                                     "drop-after:N, reboot-after:N, throttle:F); repeatable."),
                      QStringLiteral("SPEC")});
}

// Waits for a call in a local event loop (the command line has nothing else to do).
DeviceReply await(DeviceCall *call)
{
    DeviceReply reply;
    QEventLoop loop;
    QObject::connect(call, &DeviceCall::finished, &loop, [&](const DeviceReply &r) {
        reply = r;
        loop.quit();
    });
    loop.exec();
    return reply;
}

// Connects and waits for hello, or for the reason it failed.
Expected<DeviceInfo> connectAndGreet(DeviceClient &client)
{
    QEventLoop loop;
    QString failure;
    QObject::connect(&client, &DeviceClient::ready, &loop, &QEventLoop::quit);
    QObject::connect(&client, &DeviceClient::disconnected, &loop,
                     [&](const QString &reason) {
                         failure = reason;
                         loop.quit();
                     });
    client.connectToDevice();
    loop.exec();
    if (!client.isReady())
        return Expected<DeviceInfo>::failure(QStringLiteral("cannot reach %1: %2")
                                                 .arg(client.transport()->description(), failure));
    return client.info();
}

void addSshOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("kind"),
                      QStringLiteral("SSH device: its kind, checked against what it reports "
                                     "(default orin-agx)."),
                      QStringLiteral("KIND"), QStringLiteral("orin-agx")});
    parser.addOption({QStringLiteral("sudo"),
                      QStringLiteral("SSH device: run the agent through sudo -n (it needs root "
                                     "to change clocks).")});
    parser.addOption({QStringLiteral("identity"),
                      QStringLiteral("SSH device: a private key to try first; repeatable."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("known-hosts"),
                      QStringLiteral("SSH device: known_hosts file (default ~/.ssh/known_hosts)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("ssh-config"),
                      QStringLiteral("SSH device: ssh config file (default ~/.ssh/config)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("accept-new-host-key"),
                      QStringLiteral("SSH device: trust a host seen for the first time without "
                                     "asking (a changed key is refused all the same).")});
    parser.addOption({QStringLiteral("remote-simulator"),
                      QStringLiteral("SSH device: the SSH host runs the simulated Jetson of this "
                                     "KIND from this installation (tests and demos)."),
                      QStringLiteral("KIND")});
}

SimulatorOptions simulatorOptions(const QCommandLineParser &parser, const QString &kind,
                                  int index, int count, double defaultSpeed)
{
    SimulatorOptions options;
    options.deviceKind = kind;
    const QString base = parser.isSet(QStringLiteral("sim-state"))
        ? parser.value(QStringLiteral("sim-state"))
        : SimulatorLauncher::defaultStateDirectory(kind);
    options.stateDirectory = count > 1 ? QStringLiteral("%1/%2").arg(base).arg(index + 1) : base;
    options.speed = parser.isSet(QStringLiteral("sim-speed"))
        ? parser.value(QStringLiteral("sim-speed")).toDouble()
        : defaultSpeed;
    options.faults = parser.values(QStringLiteral("sim-fault"));
    options.seed = quint64(index + 1);
    return options;
}

// A device behind ssh://: the agent uploaded and run there (or, for tests, the simulator).
Expected<SweepDevice> sshDevice(const QCommandLineParser &parser, const DeviceTarget &target,
                                int index, int count, double defaultSpeed)
{
    SshOptions ssh = SshLaunches::optionsFor(target);
    Expected<SshLaunch> launch = parser.isSet(QStringLiteral("remote-simulator"))
        ? SshLaunches::simulator(simulatorOptions(
              parser, parser.value(QStringLiteral("remote-simulator")), index, count,
              defaultSpeed))
        : SshLaunches::agent();
    if (!launch)
        return Expected<SweepDevice>::failure(launch.error());
    ssh.launch = *launch;
    ssh.useSudo = parser.isSet(QStringLiteral("sudo"));
    ssh.identityFiles = parser.values(QStringLiteral("identity"));
    if (parser.isSet(QStringLiteral("known-hosts")))
        ssh.knownHostsPath = parser.value(QStringLiteral("known-hosts"));
    if (parser.isSet(QStringLiteral("ssh-config")))
        ssh.configPath = parser.value(QStringLiteral("ssh-config"));
    ssh.prompts =
        std::make_shared<TerminalPrompts>(parser.isSet(QStringLiteral("accept-new-host-key")));
    const QString name = count > 1 ? QStringLiteral("%1#%2").arg(target.toString()).arg(index + 1)
                                   : target.toString();
    return SweepDevice {name, [ssh]() -> Transport * { return new SshTransport(ssh); }};
}

// One SweepDevice per --target; simulated devices get a state directory each.
Expected<QVector<SweepDevice>> sweepDevices(const QCommandLineParser &parser, QString *kind,
                                            QString *display, double defaultSpeed = 50)
{
    using Result = Expected<QVector<SweepDevice>>;
    QVector<SweepDevice> devices;
    QStringList names;
    const QStringList targets =
        parser.values(QStringLiteral("target")).join(QLatin1Char(',')).split(QLatin1Char(','));
    for (int i = 0; i < targets.size(); ++i) {
        Expected<DeviceTarget> target = DeviceTarget::parse(targets[i].trimmed());
        if (!target)
            return Result::failure(QStringLiteral("--target: %1").arg(target.error()),
                                   ErrorKind::BadInput);
        if (target->kind == DeviceTarget::Kind::Ssh) {
            Expected<SweepDevice> device =
                sshDevice(parser, *target, i, int(targets.size()), defaultSpeed);
            if (!device)
                return Result::failure(device.error(), device.errorKind());
            const QString sshKind = parser.isSet(QStringLiteral("remote-simulator"))
                ? parser.value(QStringLiteral("remote-simulator"))
                : parser.value(QStringLiteral("kind"));
            if (!kind->isEmpty() && *kind != sshKind)
                return Result::failure(QStringLiteral("--target: a fleet must be of one kind"),
                                       ErrorKind::BadInput);
            *kind = sshKind;
            names.append(device->target);
            devices.append(*device);
            continue;
        }
        if (!kind->isEmpty() && *kind != target->deviceKind) {
            return Result::failure(QStringLiteral("--target: a fleet must be of one kind, not "
                                                  "%1 and %2")
                                       .arg(*kind, target->deviceKind),
                                   ErrorKind::BadInput);
        }
        *kind = target->deviceKind;
        const SimulatorOptions options =
            simulatorOptions(parser, target->deviceKind, i, int(targets.size()), defaultSpeed);
        if (!(options.speed >= 1 && options.speed <= 10000)) {
            return Result::failure(QStringLiteral("--sim-speed: expected 1..10000"),
                                   ErrorKind::BadInput);
        }
        const QString name = targets.size() > 1
            ? QStringLiteral("%1#%2").arg(target->toString()).arg(i + 1)
            : target->toString();
        names.append(name);
        // Checked once here, so that a missing simulator is an error now, not a retry loop.
        Expected<LocalProcessTransport *> first = SimulatorLauncher::transport(options);
        if (!first)
            return Result::failure(first.error());
        delete *first;
        devices.append({name, [options]() -> Transport * {
                            Expected<LocalProcessTransport *> transport =
                                SimulatorLauncher::transport(options);
                            if (transport)
                                return *transport;
                            // Gone since the check (state directory removed): an agent that
                            // exits at once with the reason keeps the runner's error path.
                            return new LocalProcessTransport(
                                QStringLiteral("python3"),
                                {QStringLiteral("-c"), QStringLiteral("import sys; sys.exit(1)")},
                                transport.error());
                        }});
    }
    *display = names.join(QLatin1Char(','));
    return devices;
}

// How long profiling each planned mode should take by the workload's newest model, if it has
// one: its predicted minibatch time for every minibatch, plus a few seconds to settle.
std::shared_ptr<QHash<PowerMode, double>> predictedProfileSeconds(Store &store,
                                                                   SweepStore &sweeps,
                                                                   qint64 sweepId)
{
    constexpr double kSettleSeconds = 3;
    Expected<SweepRecord> record = sweeps.load(sweepId);
    if (!record)
        return nullptr;
    Expected<ModelRecord> model =
        store.latestModel(record->plan.deviceKind, record->plan.workload, QString());
    if (!model)
        return nullptr;
    Expected<PowerModel> predictor = PowerModel::fromRecord(*model);
    if (!predictor)
        return nullptr;
    const ModePredictions predicted = predictor->predict(record->plan.modes);
    auto seconds = std::make_shared<QHash<PowerMode, double>>();
    for (int i = 0; i < record->plan.modes.size(); ++i) {
        seconds->insert(record->plan.modes[i],
                        record->plan.minibatches * predicted.timeMs[i] / 1000 + kSettleSeconds);
    }
    return seconds;
}

// For --modes als:N: active learning picks the next batch from every measurement of the
// workload on the device, until N modes are planned or the front has nothing new.
std::function<Expected<QVector<PowerMode>>(const SweepRecord &)>
adaptiveExtender(Store &store, SweepStore &sweeps, qint64 sweepId)
{
    Expected<SweepRecord> record = sweeps.load(sweepId);
    if (!record || !record->plan.modeSet.startsWith(QLatin1String("als:")))
        return nullptr;
    const int limit = record->plan.modeSet.mid(4).toInt();
    Expected<DeviceSpec> spec = DeviceSpec::builtin(record->plan.deviceKind);
    if (!spec)
        return nullptr;
    const ModeSpace space(*spec);
    QVector<PowerMode> candidates;
    candidates.reserve(int(space.size()));
    for (qint64 i = 0; i < space.size(); ++i)
        candidates.append(space.mode(i));
    return [&store, candidates, limit](const SweepRecord &sweep) -> Expected<QVector<PowerMode>> {
        const QSet<PowerMode> planned(sweep.plan.modes.cbegin(), sweep.plan.modes.cend());
        QSet<PowerMode> seen = planned;
        for (const SweepItem &item : sweep.items)
            seen.insert(item.mode);
        const int room = limit - int(seen.size());
        if (room <= 0)
            return QVector<PowerMode>();
        Expected<QVector<Measurement>> rows =
            store.measurements(sweep.plan.device, sweep.plan.workload);
        if (!rows)
            return Expected<QVector<PowerMode>>::failure(rows.error());
        return ActiveSelection::next(sweep.plan.deviceKind, TrainingData::fromMeasurements(*rows),
                                     candidates, seen,
                                     std::min(room, int(SweepPlan::kAdaptiveBatch)),
                                     sweep.plan.seed + quint64(seen.size()));
    };
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
                      QStringLiteral("Device name in the store (default: the target's kind; "
                                     "simulated-KIND for a simulated one)."),
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
    QString kind;
    QString targets;
    Expected<QVector<SweepDevice>> devices = sweepDevices(parser, &kind, &targets);
    if (!devices)
        return output.fail(devices.error(), devices.errorKind());
    const QString workload = parser.value(QStringLiteral("workload"));
    const QString device = parser.isSet(QStringLiteral("device"))
        ? parser.value(QStringLiteral("device"))
        : QStringLiteral("simulated-") + kind;

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store.error(), store.errorKind());
    SweepStore sweeps(**store);
    qint64 sweepId = 0;
    if (resume) {
        Expected<qint64> latest = sweeps.latest(device, workload);
        if (!latest)
            return output.fail(latest.error(), latest.errorKind());
        sweepId = *latest;
    } else {
        Expected<DeviceSpec> spec = DeviceSpec::builtin(kind);
        if (!spec)
            return output.fail(spec.error(), ErrorKind::BadInput);
        Expected<WorkloadSpec> run = workloadToRun(parser, workload);
        if (!run)
            return output.fail(run.error(), run.errorKind());
        bool ok = true;
        SweepPlan plan;
        plan.device = device;
        plan.deviceKind = kind;
        plan.workload = workload;
        plan.target = targets;
        plan.modeSet = parser.value(QStringLiteral("modes"));
        plan.run = QString::fromUtf8(QJsonDocument(run->toJson()).toJson(QJsonDocument::Compact));
        plan.minibatches = parser.value(QStringLiteral("minibatches")).toInt(&ok);
        if (!ok || plan.minibatches < 2 || plan.minibatches > 100000)
            return output.badUsage(QStringLiteral("--minibatches: expected 2..100000"));
        plan.repeats = parser.value(QStringLiteral("repeats")).toInt(&ok);
        if (!ok || plan.repeats < 1 || plan.repeats > 100)
            return output.badUsage(QStringLiteral("--repeats: expected 1..100"));
        plan.seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
        if (!ok)
            return output.badUsage(QStringLiteral("--seed: expected a non-negative integer"));
        Expected<QVector<PowerMode>> modes = SweepPlan::selectModes(*spec, plan.modeSet, plan.seed);
        if (!modes)
            return output.fail(modes.error(), modes.errorKind());
        plan.modes = *modes;
        SweepPlan::orderHighToLow(plan.modes);
        Expected<qint64> created = sweeps.create(plan);
        if (!created)
            return output.fail(created.error(), created.errorKind());
        sweepId = *created;
    }

    SweepRunner runner(**store, sweepId, *devices, SweepRunner::Options());
    if (auto extender = adaptiveExtender(**store, sweeps, sweepId))
        runner.setPlanExtender(extender);
    if (auto predicted = predictedProfileSeconds(**store, sweeps, sweepId)) {
        runner.setPredictedSeconds([predicted](const PowerMode &mode) {
            return predicted->value(mode, 0.0);
        });
    }
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
    QObject::connect(&runner, &SweepRunner::finished, &loop,
                     [&](bool ok, const QString &text) {
                         complete = ok;
                         summary = text;
                         loop.quit();
                     });
    QElapsedTimer clock;
    clock.start();
    QMetaObject::invokeMethod(&runner, &SweepRunner::start, Qt::QueuedConnection);
    loop.exec();

    Expected<SweepRecord> record = sweeps.load(sweepId);
    if (!record)
        return output.fail(record.error(), record.errorKind());
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
                       {QStringLiteral("overhead_per_mode_s"), runner.overheadPerModeSeconds()}});
    } else {
        output.line(summary);
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
    QString kind;
    QString display;
    Expected<QVector<SweepDevice>> devices = sweepDevices(parser, &kind, &display, 1.0);
    if (!devices)
        return output.fail(devices.error(), devices.errorKind());
    if (devices->size() != 1)
        return output.badUsage(QStringLiteral("--target: apply takes one device"));
    Expected<DeviceSpec> spec = DeviceSpec::builtin(kind);
    if (!spec)
        return output.fail(spec.error(), ErrorKind::BadInput);
    Expected<PowerMode> mode = ModeSpace(*spec).parse(parser.value(QStringLiteral("mode")));
    if (!mode)
        return output.fail(QStringLiteral("--mode: %1").arg(mode.error()), ErrorKind::BadInput);
    const SweepDevice &device = devices->first();
    // The deadline as the desktop sees it: a simulated device may run its clock faster (apply
    // runs no workload, so its simulated device keeps real time unless told otherwise).
    const double speed = parser.isSet(QStringLiteral("sim-speed"))
        ? parser.value(QStringLiteral("sim-speed")).toDouble()
        : 1.0;
    const qint64 deadlineMs = qint64(seconds * 1000.0 / speed);

    // 1. Arm the device-side revert, then apply.
    DeviceClient first(device.makeTransport());
    Expected<DeviceInfo> info = connectAndGreet(first);
    if (!info)
        return output.fail(info.error(), ErrorKind::Failed);
    const PowerMode previous = info->mode;
    if (previous == *mode) {
        output.line(QStringLiteral("%1 is already in %2").arg(device.target, mode->toCanonical()));
        return kExitOk;
    }
    const DeviceReply armed = await(first.armRevert(seconds));
    if (!armed.ok)
        return output.fail(QStringLiteral("arm_revert: %1").arg(armed.error.text()),
                           ErrorKind::Failed);
    const QString token = armed.result.value(QLatin1String("token")).toString();
    QElapsedTimer sinceArmed;
    sinceArmed.start();
    const DeviceReply applied = await(first.applyMode(*mode));
    if (!applied.ok) {
        return output.fail(QStringLiteral("%1 refused %2: %3; the armed revert keeps it in %4")
                               .arg(device.target, mode->toCanonical(), applied.error.text(),
                                    previous.toCanonical()),
                           ErrorKind::Failed);
    }
    output.err() << QStringLiteral("applied %1 (was %2); confirming over a new connection "
                                   "within %3 s")
                        .arg(mode->toCanonical(), previous.toCanonical())
                        .arg(seconds)
                 << Qt::endl;
    // The first connection ends; its agent stays only to revert if nobody confirms.
    first.disconnectFromDevice();

    // 2. Reconnect: a mode that cuts the device off cannot be confirmed, so it reverts.
    QString lastError;
    while (sinceArmed.elapsed() < deadlineMs) {
        DeviceClient second(device.makeTransport());
        Expected<DeviceInfo> again = connectAndGreet(second);
        if (!again) {
            lastError = again.error();
            QThread::msleep(100);
            continue;
        }
        if (!(again->mode == *mode)) {
            lastError = QStringLiteral("the device reports %1").arg(again->mode.toCanonical());
            break;
        }
        QJsonObject fields;
        if (!token.isEmpty())
            fields.insert(QStringLiteral("token"), token);
        const DeviceReply confirmed = await(second.call(QStringLiteral("confirm"), fields));
        if (confirmed.ok) {
            if (output.json()) {
                output.object({{QStringLiteral("mode"), mode->toCanonical()},
                               {QStringLiteral("previous"), previous.toCanonical()},
                               {QStringLiteral("confirmed"), true},
                               {QStringLiteral("target"), device.target}});
            } else {
                output.line(QStringLiteral("%1 now runs %2 (%3), confirmed")
                                .arg(device.target, mode->toCanonical(), mode->toShort()));
            }
            return kExitOk;
        }
        lastError = confirmed.error.text();
        break;
    }
    // 3. Not confirmed: the device goes back by itself at the deadline. Wait for it and look.
    output.err() << QStringLiteral("could not confirm %1 (%2); waiting for the device to revert")
                        .arg(mode->toCanonical(),
                             lastError.isEmpty() ? QStringLiteral("no answer") : lastError)
                 << Qt::endl;
    QString now = QStringLiteral("unknown (unreachable)");
    const qint64 lookUntil = deadlineMs + qMax<qint64>(5000, deadlineMs);
    QThread::msleep(ulong(qMax<qint64>(0, deadlineMs - sinceArmed.elapsed())));
    while (sinceArmed.elapsed() < lookUntil) {
        DeviceClient look(device.makeTransport());
        Expected<DeviceInfo> after = connectAndGreet(look);
        if (after && after->mode == previous) {
            now = after->mode.toCanonical();
            break;
        }
        if (after)
            now = after->mode.toCanonical();
        QThread::msleep(200);
    }
    return output.fail(QStringLiteral("%1: %2 was not confirmed within %3 s; the device is in %4 "
                                      "(before: %5)")
                           .arg(device.target, mode->toCanonical())
                           .arg(seconds)
                           .arg(now, previous.toCanonical()),
                       ErrorKind::Failed);
}

}  // namespace ptwb::cli
