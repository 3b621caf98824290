#include "devicework.h"

#include "devicetargets.h"
#include "modeapplier.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweeprunner.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>

#include <memory>

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

Expected<SweepOutcome>
runSweep(const QCommandLineParser &parser, const workflows::SweepRequest &request,
         const QVector<workflows::DeviceEndpoint> &devices, Store &store, Output &output,
         const std::function<void(const SweepItem &, const Measurement &)> &recorded)
{
    const Expected<qint64> planned = workflows::planSweep(store, request, devices);
    if (!planned)
        return passOn<Expected<SweepOutcome>>(planned);
    SweepOutcome outcome;
    outcome.sweepId = *planned;
    Expected<std::unique_ptr<SweepRunner>> launched =
        workflows::sweepRunner(store, outcome.sweepId, devices, nullptr, request.stopAfterFailures);
    if (!launched)
        return passOn<Expected<SweepOutcome>>(launched);
    SweepRunner &runner = **launched;
    QEventLoop loop;
    QObject::connect(&runner, &SweepRunner::message, &loop,
                     [&output](const QString &text) { output.err() << text << Qt::endl; });
    if (recorded)
        QObject::connect(&runner, &SweepRunner::itemRecorded, &loop, recorded);
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
                output.err()
                    << QStringLiteral("%1/%2 done, %3 failed, %4 s, %5 left, %6 W on %7%8")
                           .arg(p.done)
                           .arg(p.total)
                           .arg(p.failed)
                           .arg(p.elapsedSeconds, 0, 'f', 1)
                           .arg(p.remainingSeconds < 0
                                    ? QStringLiteral("?")
                                    : QStringLiteral("%1 s").arg(p.remainingSeconds, 0, 'f', 0))
                           .arg(p.livePowerW, 0, 'f', 1)
                           .arg(p.target)
                           .arg(p.currentMode.isEmpty()
                                    ? QString()
                                    : QStringLiteral(", measuring ") + p.currentMode +
                                        (p.currentBatch > 0
                                             ? QStringLiteral(" at batch %1").arg(p.currentBatch)
                                             : QString()))
                    << Qt::endl;
            });
    }
    QObject::connect(&runner, &SweepRunner::finished, &loop, [&](bool ok, const QString &text) {
        outcome.complete = ok;
        outcome.summary = text;
        loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    QMetaObject::invokeMethod(&runner, &SweepRunner::start, Qt::QueuedConnection);
    loop.exec();
    outcome.seconds = clock.nsecsElapsed() / 1e9;
    outcome.overheadPerModeSeconds = runner.overheadPerModeSeconds();
    outcome.plannedReboots = runner.plannedReboots();
    outcome.storeFailure = runner.storeFailure();
    return outcome;
}

void addSweepRunOptions(QCommandLineParser &parser, const QString &resumeHelp)
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("target"),
                      QStringLiteral("Device(s): sim:orin-agx (the simulated Jetson) or "
                                     "ssh://USER@HOST[:PORT]; several separated by commas for a "
                                     "fleet sharing the sweep."),
                      QStringLiteral("TARGET")});
    parser.addOption({QStringLiteral("workload"),
                      QStringLiteral("Workload name in the store, e.g. mobilenet_v3. Without "
                                     "--run, a saved definition of that name (ptwb workload) is "
                                     "run, else the built-in workload."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("minibatches"),
                      QStringLiteral("Minibatches per mode, the first discarded (default 40; a "
                                     "saved definition's skip + keep)."),
                      QStringLiteral("N"), QStringLiteral("40")});
    parser.addOption({QStringLiteral("run"),
                      QStringLiteral("What the device runs: builtin:NAME[:BATCH] (default: the "
                                     "workload's name when built in) or a JSON workload "
                                     "{\"kind\":\"command\",\"argv\":[...]}."),
                      QStringLiteral("WORKLOAD")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device name in the store (default: the target's kind, "
                                     "or simulated-KIND for a simulated one)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("resume"), resumeHelp});
    addSimulatorOptions(parser);
    addSshOptions(parser);
    parser.addOption({QStringLiteral("progress"),
                      QStringLiteral("Print progress (modes done, time left, live power) on "
                                     "stderr.")});
}

Expected<workflows::SweepRequest> sweepRunRequest(const QCommandLineParser &parser)
{
    using Result = Expected<workflows::SweepRequest>;
    workflows::SweepRequest request;
    request.workload = parser.value(QStringLiteral("workload"));
    request.deviceName = parser.value(QStringLiteral("device"));
    request.resume = parser.isSet(QStringLiteral("resume"));
    bool ok = true;
    request.minibatches = parser.value(QStringLiteral("minibatches")).toInt(&ok);
    if (!ok)
        return Result::badInput(InputField::Minibatches,
                                QStringLiteral("--minibatches: expected 2..100000"));
    const Expected<std::optional<WorkloadSpec>> run = parseRun(parser);
    if (!run)
        return passOn<Result>(run);
    request.run = *run;
    return request;
}

Expected<PowerMode> applyWithRevert(const workflows::DeviceEndpoint &device, const PowerMode &mode,
                                    int seconds, double speed, Output &output, bool byReboot)
{
    // A mode that cuts the device off cannot be confirmed; the device goes back by itself at the
    // deadline, and the applier looks.
    ModeApplier::Options options;
    options.keepAfterSeconds = 0;
    options.revertMarginSeconds = seconds;
    options.deviceSpeed = speed;
    options.allowReboot = byReboot;
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
    applier.start(mode);
    if (applier.phase() != ModeApplier::Phase::Done)
        loop.exec();

    if (applier.needsReboot())
        message += QStringLiteral(" (ptwb apply --by-reboot)");
    if (!kept)
        return Expected<PowerMode>::failure(QStringLiteral("%1: %2").arg(device.address, message),
                                            ErrorKind::Failed);
    return applier.previousMode();
}

}  // namespace ptwb::cli
