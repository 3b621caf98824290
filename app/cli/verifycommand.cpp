#include "verifycommand.h"

#include "concurrent/concurrentspace.h"
#include "concurrentstudy.h"
#include "concurrentverify.h"
#include "devicetargets.h"
#include "simulatorlauncher.h"
#include "store/store.h"
#include "util/printable.h"

#include <QEventLoop>
#include <QRegularExpression>

#include <cmath>

namespace ptwb::cli {

namespace {

QJsonValue orNull(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue();
}

QJsonObject outcomeJson(const ConcurrentOutcome &o)
{
    return {{QStringLiteral("keeps_up"), o.keepsUp},
            {QStringLiteral("minibatches_per_cycle"), o.minibatchesPerCycle},
            {QStringLiteral("throughput"), o.throughput},
            {QStringLiteral("latency_s"), o.latencyS},
            {QStringLiteral("power_w"), o.powerW},
            {QStringLiteral("meets_latency"), o.meetsLatency},
            {QStringLiteral("meets_power"), o.meetsPower}};
}

QJsonObject measuredJson(const ConcurrentMeasurement &m)
{
    QJsonObject latency;
    if (m.latencyMs)
        latency = {{QStringLiteral("p50"), m.latencyMs->p50},
                   {QStringLiteral("p95"), m.latencyMs->p95},
                   {QStringLiteral("p99"), m.latencyMs->p99},
                   {QStringLiteral("max"), m.latencyMs->max},
                   {QStringLiteral("mean"), m.latencyMeanMs}};
    return {{QStringLiteral("requests"), m.requests},
            {QStringLiteral("run_s"), m.runSeconds},
            {QStringLiteral("latency_ms"), latency},
            {QStringLiteral("train_minibatches"), m.trainMinibatches},
            {QStringLiteral("infer_minibatches"), m.inferMinibatches},
            {QStringLiteral("train_per_s"), m.trainPerSecond},
            {QStringLiteral("infer_per_s"), m.inferPerSecond},
            {QStringLiteral("train_ms"), m.trainMsMedian},
            {QStringLiteral("infer_ms"), m.inferMsMedian},
            {QStringLiteral("overruns"), m.overruns},
            {QStringLiteral("max_overrun_ms"), m.maxOverrunMs},
            {QStringLiteral("backlog"), m.backlog},
            {QStringLiteral("power_median_w"), orNull(m.powerMedianW)},
            {QStringLiteral("power_max_w"), orNull(m.powerMaxW)},
            {QStringLiteral("mode"), m.mode.toCanonical()}};
}

QString num(double v, int decimals)
{
    return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("-");
}

}  // namespace

void VerifyConcurrentCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOptions({
        {QStringLiteral("target"),
         QStringLiteral("Device: sim:orin-agx (the simulated Jetson) or ssh://USER@HOST[:PORT]."),
         QStringLiteral("TARGET")},
        {QStringLiteral("train"),
         QStringLiteral("Training workload: a built-in one (resnet18, mobilenet_v3)."),
         QStringLiteral("W")},
        {QStringLiteral("infer"),
         QStringLiteral("Inference workload: a built-in one (resnet18, mobilenet_v3)."),
         QStringLiteral("W")},
        {QStringLiteral("arrival-rate"),
         QStringLiteral("Inference requests per second (evenly spaced)."), QStringLiteral("RATE")},
        {QStringLiteral("batch"), QStringLiteral("Requests per inference minibatch (b)."),
         QStringLiteral("B")},
        {QStringLiteral("train-batch"), QStringLiteral("Training minibatch size (default 16)."),
         QStringLiteral("N"), QStringLiteral("16")},
        {QStringLiteral("mode"),
         QStringLiteral("Mode to run at, applied with the device-side revert: "
                        "12/2201600/1300500000/3199000000, the underscore or the short form."),
         QStringLiteral("MODE")},
        {QStringLiteral("duration"),
         QStringLiteral("Device seconds of arriving requests (default 60, at most 3000)."),
         QStringLiteral("S"), QStringLiteral("60")},
        {QStringLiteral("keep"),
         QStringLiteral("Keep the mode after a good run (default: restore the previous one).")},
        {QStringLiteral("device"),
         QStringLiteral("Device in the store whose measurements predict (default: the one the "
                        "training workload was measured on)."),
         QStringLiteral("NAME")},
        {QStringLiteral("stored-train"),
         QStringLiteral("The training workload's name in the store, for the prediction "
                        "(default: --train)."),
         QStringLiteral("W")},
        {QStringLiteral("stored-infer"),
         QStringLiteral("The inference workload's name in the store, for the prediction "
                        "(default: --infer)."),
         QStringLiteral("W")},
        {QStringLiteral("latency-budget"),
         QStringLiteral("Latency budget in seconds, to judge against."), QStringLiteral("S")},
        {QStringLiteral("power-budget"), QStringLiteral("Power budget in watts, to judge against."),
         QStringLiteral("W")},
    });
    parser.addOption(dbOption());
    addSimulatorOptions(parser);
    addSshOptions(parser);
}

QString VerifyConcurrentCommand::optionFor(InputField field) const
{
    switch (field) {
    case InputField::Run:
        return QStringLiteral("duration");
    case InputField::Device:
        return QStringLiteral("device");
    default:
        return defaultOptionFor(field);
    }
}

int VerifyConcurrentCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser,
                        {QStringLiteral("target"), QStringLiteral("train"), QStringLiteral("infer"),
                         QStringLiteral("arrival-rate"), QStringLiteral("batch"),
                         QStringLiteral("mode")},
                        output, &exitCode))
        return exitCode;
    workflows::VerificationRequest request;
    request.trainWorkload = parser.value(QStringLiteral("train"));
    request.inferWorkload = parser.value(QStringLiteral("infer"));
    request.keepMode = parser.isSet(QStringLiteral("keep"));
    bool ok = false;
    request.arrivalRate = parser.value(QStringLiteral("arrival-rate")).toDouble(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--arrival-rate: expected requests per second"));
    request.inferBatch = parser.value(QStringLiteral("batch")).toInt(&ok);
    if (!ok || request.inferBatch < 1 || request.inferBatch > 4096)
        return output.badUsage(QStringLiteral("--batch: expected 1..4096 requests"));
    request.trainBatch = parser.value(QStringLiteral("train-batch")).toInt(&ok);
    if (!ok || request.trainBatch < 1 || request.trainBatch > 4096)
        return output.badUsage(QStringLiteral("--train-batch: expected 1..4096"));
    request.durationS = parser.value(QStringLiteral("duration")).toDouble(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--duration: expected device seconds"));
    const auto budget = [&](const char *option, double *value) {
        if (!parser.isSet(QLatin1String(option)))
            return true;
        *value = parser.value(QLatin1String(option)).toDouble(&ok);
        return ok && *value > 0 && std::isfinite(*value);
    };
    if (!budget("latency-budget", &request.problem.latencyBudgetS))
        return output.badUsage(QStringLiteral("--latency-budget: expected seconds above 0"));
    if (!budget("power-budget", &request.problem.powerBudgetW))
        return output.badUsage(QStringLiteral("--power-budget: expected watts above 0"));
    const Status checked = workflows::checkVerification(request);
    if (!checked)
        return output.fail(checked);

    const Expected<TargetAndMode> target =
        oneTargetAndMode(parser, SimulatorOptions().speed, name());
    if (!target)
        return output.fail(target);
    const workflows::DeviceEndpoint &device = target->device;
    const PowerMode &mode = target->mode;
    request.mode = mode;

    // Predictions from the store, when one is named: the device's built-in networks stand in
    // for the stored workloads, whose names may differ (--stored-train, --stored-infer).
    if (parser.isSet(QStringLiteral("db"))) {
        Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
        if (!store)
            return output.fail(store);
        const auto stored = [&parser](const char *option, const QString &fallback) {
            const QString name = parser.value(QLatin1String(option));
            return name.isEmpty() ? fallback : name;
        };
        const Expected<ConcurrentSpace> space =
            workflows::loadConcurrentSpace(**store, parser.value(QStringLiteral("device")),
                                           stored("stored-train", request.trainWorkload),
                                           stored("stored-infer", request.inferWorkload));
        if (!space)
            return output.fail(space);
        const Expected<PairCost> cost = workflows::predictedCost(*space, mode, request.inferBatch);
        if (!cost)
            return output.fail(cost);
        request.predicted = *cost;
    }

    std::optional<Expected<workflows::VerificationOutcome>> result;
    QEventLoop loop;
    workflows::VerificationCallbacks callbacks;
    callbacks.phase = [&output](const QString &text) {
        output.err() << terminalSafe(text) << Qt::endl;
    };
    callbacks.progress = [&output](const ConcurrentMeasurement &m) {
        QString latency = QStringLiteral("no batch answered yet");
        if (m.latencyMs)
            latency = QStringLiteral("latency p50 %1 / p95 %2 / p99 %3 ms")
                          .arg(num(m.latencyMs->p50, 1), num(m.latencyMs->p95, 1),
                               num(m.latencyMs->p99, 1));
        output.err() << QStringLiteral("%1 s: %2 requests, %3, training %4/s, inference %5/s, "
                                       "%6 W, %7 overruns")
                            .arg(num(m.runSeconds, 1))
                            .arg(m.requests)
                            .arg(latency, num(m.trainPerSecond, 2), num(m.inferPerSecond, 2),
                                 m.powerMedianW ? num(*m.powerMedianW, 1) : QStringLiteral("?"))
                            .arg(m.overruns)
                     << Qt::endl;
    };
    callbacks.finished = [&](const Expected<workflows::VerificationOutcome> &done) {
        result = done;
        loop.quit();
    };
    std::unique_ptr<workflows::VerificationRun> run =
        workflows::startVerification(device, request, callbacks);
    // Ctrl-C ends `ptwb` and the connection with it: the agent stops the run, and its armed
    // revert restores the previous mode at the deadline.
    if (!result)
        loop.exec();
    if (!*result)
        return output.fail(*result);
    const workflows::VerificationOutcome &o = **result;
    const ConcurrentMeasurement &m = o.measured;
    const double b = request.inferBatch;
    const double cycleS = b / request.arrivalRate;

    if (output.json()) {
        QJsonObject object {
            {QStringLiteral("target"), device.address},
            {QStringLiteral("mode"), mode.toCanonical()},
            {QStringLiteral("previous"), o.previousMode.toCanonical()},
            {QStringLiteral("kept"), o.modeKept},
            {QStringLiteral("train"), request.trainWorkload},
            {QStringLiteral("infer"), request.inferWorkload},
            {QStringLiteral("arrival_rate"), request.arrivalRate},
            {QStringLiteral("batch"), request.inferBatch},
            {QStringLiteral("duration_s"), request.durationS},
            {QStringLiteral("arrivals"), QStringLiteral("uniform")},
            {QStringLiteral("measured"), measuredJson(m)},
            {QStringLiteral("formula_measured_times"), outcomeJson(o.fromMeasuredTimes)},
            {QStringLiteral("predicted"),
             o.predicted ? QJsonValue(outcomeJson(*o.predicted)) : QJsonValue()},
            {QStringLiteral("latency_budget_s"),
             request.problem.latencyBudgetS > 0 ? QJsonValue(request.problem.latencyBudgetS)
                                                : QJsonValue()},
            {QStringLiteral("power_budget_w"),
             request.problem.powerBudgetW > 0 ? QJsonValue(request.problem.powerBudgetW)
                                              : QJsonValue()}};
        for (const auto &[key, check] :
             {std::pair {QStringLiteral("latency_met"),
                         workflows::latencyCheck(request.problem, m)},
              std::pair {QStringLiteral("power_met"), workflows::powerCheck(request.problem, m)}}) {
            if (check.judged())
                object.insert(key, check.met());
        }
        if (request.predicted)
            object.insert(
                QStringLiteral("predicted_cost"),
                QJsonObject {{QStringLiteral("train_ms"), request.predicted->trainTimeMs},
                             {QStringLiteral("train_w"), request.predicted->trainPowerW},
                             {QStringLiteral("infer_ms"), request.predicted->inferTimeMs},
                             {QStringLiteral("infer_w"), request.predicted->inferPowerW}});
        output.object(object);
        return kExitOk;
    }

    const QString lb = request.problem.latencyBudgetS > 0
        ? num(request.problem.latencyBudgetS * 1000, 0)
        : QString();
    const QString pb =
        request.problem.powerBudgetW > 0 ? num(request.problem.powerBudgetW, 1) : QString();
    const auto row = [&output](const QString &what, const QString &measured, const QString &formula,
                               const QString &predicted, const QString &budgetText) {
        output.line(QStringLiteral("%1 %2 %3 %4 %5")
                        .arg(what, -26)
                        .arg(measured, 10)
                        .arg(formula, 14)
                        .arg(predicted, 12)
                        .arg(budgetText, 8)
                        .remove(QRegularExpression(QStringLiteral("\\s+$"))));
    };
    output.line(QStringLiteral("%1 at %2 (%3): %4 training (batch %5) while serving %6 at %7 "
                               "requests/s in batches of %8 (cycle %9 s), %10 s")
                    .arg(device.address, mode.toShort(), mode.toCanonical(), request.trainWorkload)
                    .arg(request.trainBatch)
                    .arg(request.inferWorkload)
                    .arg(request.arrivalRate)
                    .arg(request.inferBatch)
                    .arg(num(cycleS, 3))
                    .arg(num(m.runSeconds, 1)));
    const ConcurrentOutcome &f = o.fromMeasuredTimes;
    const QString predictedLatency = o.predicted ? num(o.predicted->latencyS * 1000, 1) : QString();
    row(QString(), QStringLiteral("measured"), QStringLiteral("formula"),
        o.predicted ? QStringLiteral("predicted") : QString(),
        lb.isEmpty() && pb.isEmpty() ? QString() : QStringLiteral("budget"));
    row(QStringLiteral("latency p50 (ms)"), num(m.latencyMs->p50, 1), QString(), QString(),
        QString());
    row(QStringLiteral("latency p95 (ms)"), num(m.latencyMs->p95, 1), QString(), QString(),
        QString());
    row(QStringLiteral("latency p99 (ms)"), num(m.latencyMs->p99, 1), num(f.latencyS * 1000, 1),
        predictedLatency, lb);
    row(QStringLiteral("latency max (ms)"), num(m.latencyMs->max, 1), QString(), QString(),
        QString());
    row(QStringLiteral("training (minibatches/s)"), num(m.trainPerSecond, 2),
        QStringLiteral("%1 (n=%2)").arg(num(f.throughput, 2)).arg(f.minibatchesPerCycle),
        o.predicted ? QStringLiteral("%1 (n=%2)")
                          .arg(num(o.predicted->throughput, 2))
                          .arg(o.predicted->minibatchesPerCycle)
                    : QString(),
        QString());
    row(QStringLiteral("inference (batches/s)"), num(m.inferPerSecond, 2),
        num(request.arrivalRate / b, 2), QString(), QString());
    row(QStringLiteral("power median (W)"),
        m.powerMedianW ? num(*m.powerMedianW, 1) : QStringLiteral("?"), QString(),
        o.predicted ? num(o.predicted->powerW, 1) : QString(), pb);
    row(QStringLiteral("power max (W)"), m.powerMaxW ? num(*m.powerMaxW, 1) : QStringLiteral("?"),
        QString(), QString(), QString());
    row(QStringLiteral("training minibatch (ms)"), num(m.trainMsMedian, 1), QString(),
        request.predicted ? num(request.predicted->trainTimeMs, 1) : QString(), QString());
    row(QStringLiteral("inference minibatch (ms)"), num(m.inferMsMedian, 1), QString(),
        request.predicted ? num(request.predicted->inferTimeMs, 1) : QString(), QString());
    output.line(QStringLiteral("%1 requests; %2 batches made late by training (at most %3 ms), "
                               "%4 by inference; formula: b/λ + tI and n = floor((b/λ - tI)/tT) "
                               "with the measured tT, tI")
                    .arg(m.requests)
                    .arg(m.overruns)
                    .arg(num(m.maxOverrunMs, 1))
                    .arg(m.backlog));
    const workflows::BudgetCheck latency = workflows::latencyCheck(request.problem, m);
    const workflows::BudgetCheck power = workflows::powerCheck(request.problem, m);
    if (latency.judged())
        output.line(QStringLiteral("latency budget %1 s: %2 (p99 %3 s)")
                        .arg(latency.budget)
                        .arg(latency.met()
                                 ? QStringLiteral("met")
                                 : QStringLiteral("broken by %1 s").arg(latency.over(), 0, 'f', 3))
                        .arg(*latency.measured, 0, 'f', 3));
    if (power.judged())
        output.line(QStringLiteral("power budget %1 W: %2 (median %3 W)")
                        .arg(power.budget)
                        .arg(power.met()
                                 ? QStringLiteral("met")
                                 : QStringLiteral("broken by %1 W").arg(power.over(), 0, 'f', 1))
                        .arg(*power.measured, 0, 'f', 1));
    output.line(
        o.modeKept
            ? QStringLiteral("%1 keeps %2").arg(device.address, mode.toShort())
            : QStringLiteral("%1 is back in %2").arg(device.address, o.previousMode.toShort()));
    return kExitOk;
}

}  // namespace ptwb::cli
