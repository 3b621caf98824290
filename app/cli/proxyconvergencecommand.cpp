#include "proxyconvergencecommand.h"

#include "devicetargets.h"
#include "proxyconvergence.h"
#include "util/printable.h"

#include <QEventLoop>
#include <QProcess>

#include <cmath>

namespace ptwb::cli {

namespace {

using Result = Expected<ConvergenceRelation>;

// The simulated Jetson's clock for a proxy run: a proxy training of some 100,000 samples is a
// few minutes of device time, a few seconds at this speed.
constexpr double kProxySimulatorSpeed = 200;
const char *const kProxyOnly[] = {"command",    "cwd",       "target-accuracy", "base-lr",
                                  "base-batch", "timeout",   "max-samples",     "sample-scale",
                                  "target",     "sim-state", "sim-speed",       "sim-fault"};

Result badOption(const QString &option, const QString &message)
{
    return Result::badInput(InputField::None, QStringLiteral("--%1: %2").arg(option, message));
}

std::optional<double> number(const QCommandLineParser &parser, const QString &name)
{
    bool ok = false;
    const double value = parser.value(name).toDouble(&ok);
    if (!ok || !std::isfinite(value))
        return std::nullopt;
    return value;
}

QString durationText(double seconds)
{
    if (seconds < 90)
        return QStringLiteral("%1 s").arg(qRound(seconds));
    if (seconds < 5400)
        return QStringLiteral("%1 min").arg(qRound(seconds / 60));
    return QStringLiteral("%1 h").arg(seconds / 3600, 0, 'f', 1);
}

void printBatch(Output &output, const workflows::ProxyBatchResult &r)
{
    if (output.json()) {
        output.object(
            {{QStringLiteral("batch_size"), r.batchSize},
             {QStringLiteral("learning_rate"), r.learningRate},
             {QStringLiteral("status"),
              r.reached()                                                       ? "reached"
                  : r.status == workflows::ProxyBatchResult::Status::NotReached ? "not_reached"
                                                                                : "failed"},
             {QStringLiteral("samples"), r.samples ? QJsonValue(*r.samples) : QJsonValue()},
             {QStringLiteral("accuracy"), r.accuracy ? QJsonValue(*r.accuracy) : QJsonValue()},
             {QStringLiteral("seconds"), r.seconds},
             {QStringLiteral("reason"), r.reason}});
        return;
    }
    QTextStream &err = output.err();
    if (r.reached()) {
        err << QStringLiteral("batch %1 (lr %2): reached at %3 samples, %4 device s")
                   .arg(r.batchSize)
                   .arg(r.learningRate, 0, 'g', 6)
                   .arg(*r.samples, 0, 'f', 0)
                   .arg(r.seconds, 0, 'f', 0)
            << Qt::endl;
        return;
    }
    err << QStringLiteral("batch %1 (lr %2): %3: %4")
               .arg(r.batchSize)
               .arg(r.learningRate, 0, 'g', 6)
               .arg(r.statusText(), printable(r.reason, 1000))
        << Qt::endl;
    for (const WorkloadOutputLine &line : r.output) {
        err << QStringLiteral("  %1| %2").arg(line.stream, printable(line.text, 1000)) << Qt::endl;
    }
}

}  // namespace

void addProxyConvergenceOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("proxy"),
                      QStringLiteral("Measure the relation by a proxy run: train with each "
                                     "--batch-sizes to --target-accuracy on --target with "
                                     "--command, the learning rate scaled linearly from "
                                     "--base-lr at --base-batch. Replaces the workload's "
                                     "relation (provenance proxy).")});
    parser.addOption({QStringLiteral("command"),
                      QStringLiteral("With --proxy: the proxy training command, run without a "
                                     "shell (quote words with spaces). It gets PTWB_BATCH_SIZE "
                                     "and PTWB_LEARNING_RATE and prints lines {\"samples\": N, "
                                     "\"accuracy\": A} (docs/device-protocol.md)."),
                      QStringLiteral("CMD")});
    parser.addOption({QStringLiteral("cwd"),
                      QStringLiteral("With --proxy: its working directory on the device, "
                                     "absolute or under ~/ (default: the agent's)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("target-accuracy"),
                      QStringLiteral("With --proxy: the accuracy to reach, a fraction (0.9)."),
                      QStringLiteral("A")});
    parser.addOption({QStringLiteral("base-lr"),
                      QStringLiteral("With --proxy: the learning rate at --base-batch."),
                      QStringLiteral("LR")});
    parser.addOption({QStringLiteral("base-batch"),
                      QStringLiteral("With --proxy: the batch size --base-lr is for."),
                      QStringLiteral("B")});
    parser.addOption({QStringLiteral("timeout"),
                      QStringLiteral("With --proxy: device seconds each batch size may train "
                                     "(default 3600)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("max-samples"),
                      QStringLiteral("With --proxy: samples each batch size may train (default "
                                     "100000000)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("sample-scale"),
                      QStringLiteral("With --proxy: multiply the samples measured by F, the full "
                                     "dataset's size over the proxy dataset's (default 1)."),
                      QStringLiteral("F")});
    parser.addOption({QStringLiteral("target"),
                      QStringLiteral("With --proxy: the host that trains, sim:KIND (default "
                                     "sim:orin-agx) or ssh://USER@HOST[:PORT]."),
                      QStringLiteral("TARGET"), QStringLiteral("sim:orin-agx")});
    addSimulatorOptions(parser);
    addSshOptions(parser);
}

QString proxyOnlyOptionSet(const QCommandLineParser &parser)
{
    for (const char *option : kProxyOnly) {
        if (parser.isSet(QLatin1String(option)))
            return QLatin1String(option);
    }
    return {};
}

Expected<ConvergenceRelation> proxyConvergence(const QCommandLineParser &parser, Output &output,
                                               const QVector<int> &batchSizes)
{
    workflows::ProxyRunRequest request;
    request.workload = parser.value(QStringLiteral("workload"));
    request.batchSizes = batchSizes;
    for (const char *required : {"command", "target-accuracy", "base-lr", "base-batch"}) {
        if (!parser.isSet(QLatin1String(required)))
            return badOption(QLatin1String(required), QStringLiteral("required with --proxy"));
    }
    request.argv = QProcess::splitCommand(parser.value(QStringLiteral("command")));
    if (request.argv.isEmpty())
        return badOption(QStringLiteral("command"),
                         QStringLiteral("expected a command, e.g. 'python3 proxy_train.py'"));
    request.workingDirectory = parser.value(QStringLiteral("cwd"));
    const std::optional<double> target = number(parser, QStringLiteral("target-accuracy"));
    if (!target || *target <= 0 || *target > 1) {
        return badOption(QStringLiteral("target-accuracy"),
                         QStringLiteral("'%1' is not an accuracy; expected a fraction in (0, 1], "
                                        "e.g. 0.9 (not a percent)")
                             .arg(parser.value(QStringLiteral("target-accuracy")).left(40)));
    }
    request.targetAccuracy = *target;
    const std::optional<double> lr = number(parser, QStringLiteral("base-lr"));
    if (!lr || *lr <= 0 || *lr > 1e6)
        return badOption(QStringLiteral("base-lr"),
                         QStringLiteral("expected a positive learning rate, e.g. 0.1"));
    request.baseLearningRate = *lr;
    bool ok = false;
    request.baseBatch = parser.value(QStringLiteral("base-batch")).toInt(&ok);
    if (!ok || request.baseBatch < 1 || request.baseBatch > ConvergenceRelation::kMaxBatch)
        return badOption(QStringLiteral("base-batch"),
                         QStringLiteral("expected a batch size 1 to 4096"));
    if (parser.isSet(QStringLiteral("timeout"))) {
        request.timeoutSeconds = parser.value(QStringLiteral("timeout")).toInt(&ok);
        if (!ok || request.timeoutSeconds < 1 || request.timeoutSeconds > 7 * 86400)
            return badOption(QStringLiteral("timeout"),
                             QStringLiteral("expected 1 to 604800 device seconds"));
    }
    if (parser.isSet(QStringLiteral("max-samples"))) {
        request.maxSamples = parser.value(QStringLiteral("max-samples")).toLongLong(&ok);
        if (!ok || request.maxSamples < 1)
            return badOption(QStringLiteral("max-samples"),
                             QStringLiteral("expected a positive number of samples"));
    }
    if (parser.isSet(QStringLiteral("sample-scale"))) {
        const std::optional<double> scale = number(parser, QStringLiteral("sample-scale"));
        if (!scale || *scale <= 0)
            return badOption(QStringLiteral("sample-scale"),
                             QStringLiteral("expected a positive factor, e.g. 20"));
        request.sampleScale = *scale;
    }
    if (const Status checked = request.check(); !checked)
        return passOn<Result>(checked);
    const Expected<QVector<workflows::DeviceEndpoint>> devices =
        targetDevices(parser, kProxySimulatorSpeed);
    if (!devices)
        return passOn<Result>(devices);
    if (devices->size() != 1)
        return badOption(QStringLiteral("target"), QStringLiteral("a proxy run uses one host"));

    std::optional<Expected<workflows::ProxyRunReport>> report;
    QEventLoop loop;
    std::unique_ptr<workflows::ProxyConvergenceRun> run =
        workflows::startProxyConvergence(devices->first(), request);
    workflows::ProxyConvergenceRun *running = run.get();
    QObject::connect(running, &workflows::ProxyConvergenceRun::connected, &loop,
                     [&output, &request](const QString &device) {
                         output.err() << QStringLiteral("proxy run on %1: %2 batch sizes to "
                                                        "accuracy %3")
                                             .arg(device)
                                             .arg(request.batchSizes.size())
                                             .arg(request.targetAccuracy)
                                      << Qt::endl;
                     });
    QObject::connect(
        running, &workflows::ProxyConvergenceRun::batchStarted, &loop,
        [&output, running](int index, int count, int batch, double rate) {
            const std::optional<double> left = running->secondsLeft();
            output.err() << QStringLiteral("batch %1 (%2 of %3), learning rate %4%5")
                                .arg(batch)
                                .arg(index + 1)
                                .arg(count)
                                .arg(rate, 0, 'g', 6)
                                .arg(
                                    left
                                        ? QStringLiteral("; about %1 left").arg(durationText(*left))
                                        : QString())
                         << Qt::endl;
        });
    QObject::connect(running, &workflows::ProxyConvergenceRun::batchFinished, &loop,
                     [&output](const workflows::ProxyBatchResult &r) { printBatch(output, r); });
    QObject::connect(running, &workflows::ProxyConvergenceRun::finished, &loop,
                     [&](const Expected<workflows::ProxyRunReport> &r) {
                         report = r;
                         loop.quit();
                     });
    if (!run->isFinished())
        loop.exec();
    if (!report)
        return Result::failure(QStringLiteral("the proxy run ended without a result"));
    if (!*report)
        return passOn<Result>(*report);
    Result relation = (*report)->relation(request);
    if (relation) {
        for (const QString &line : (*report)->shortfalls())
            output.err() << QStringLiteral("not in the relation: %1").arg(line) << Qt::endl;
    }
    return relation;
}

}  // namespace ptwb::cli
