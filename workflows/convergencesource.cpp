#include "convergencesource.h"

#include "simulatorlauncher.h"
#include "store/convergencecsv.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include <algorithm>

namespace ptwb::workflows {

namespace {

const char kScript[] = "simulator/convergence.py";
const char kSimulatedSource[] = "simulator convergence model (SIMULATED)";
// The model answers in well under a second; a minute's worth of rows is far below a megabyte.
constexpr int kTimeoutMs = 30000;
constexpr qint64 kMaxOutput = 1 << 20;
// A file of 4,096 batch sizes is about 100 KiB; anything above a megabyte is not one.
constexpr qint64 kMaxFileSize = 1 << 20;

struct Finished
{
    int exitCode = 0;
    QByteArray out;
    QByteArray err;
};

// Runs python3 with `arguments` (an argument list, never a shell) to its end, within kTimeoutMs
// and kMaxOutput bytes on each stream; past either it is killed and the run fails.
Expected<Finished> runPython(const QStringList &arguments)
{
    using Result = Expected<Finished>;
    const QString what = QStringLiteral("the simulator's convergence model");
    const QDeadlineTimer deadline(kTimeoutMs);
    QProcess process;
    process.start(QStringLiteral("python3"), arguments);
    if (!process.waitForStarted(int(std::max<qint64>(1, deadline.remainingTime())))) {
        return Result::failure(
            QStringLiteral("cannot run %1 with python3: %2").arg(what, process.errorString()));
    }
    Finished finished;
    const auto stop = [&process](const QString &why) {
        process.kill();
        process.waitForFinished();
        return Result::failure(why);
    };
    while (true) {
        const bool running = process.state() != QProcess::NotRunning;
        if (running)
            process.waitForReadyRead(int(std::max<qint64>(1, deadline.remainingTime())));
        finished.out += process.readAllStandardOutput();
        finished.err += process.readAllStandardError();
        if (finished.out.size() > kMaxOutput || finished.err.size() > kMaxOutput) {
            return stop(QStringLiteral("%1 wrote more than %2 bytes; it was stopped")
                            .arg(what)
                            .arg(kMaxOutput));
        }
        if (!running)
            break;
        if (deadline.hasExpired()) {
            return stop(QStringLiteral("%1 did not finish within %2 s; it was stopped")
                            .arg(what)
                            .arg(kTimeoutMs / 1000));
        }
    }
    if (process.exitStatus() != QProcess::NormalExit)
        return Result::failure(QStringLiteral("%1 crashed").arg(what));
    finished.exitCode = process.exitCode();
    return finished;
}

// convergence.py names the argument it refuses ("convergence.py: --workload: unknown ..."): the
// message without its prefix, about the field that argument sets.
template<typename Result>
Result refused(const QByteArray &stderrText)
{
    const QStringList lines =
        QString::fromUtf8(stderrText).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QString message = lines.isEmpty() ? QString() : lines.back().trimmed();
    message.remove(QRegularExpression(QStringLiteral("^convergence\\.py: (error: )?")));
    static const QRegularExpression argument(
        QStringLiteral("^(?:argument )?(--[a-z-]+)(?:/[^:]*)?: (.*)$"));
    const QRegularExpressionMatch match = argument.match(message);
    const QString name = match.hasMatch() ? match.captured(1) : QString();
    const InputField field = name == QLatin1String("--workload") ? InputField::Workload
        : name == QLatin1String("--batch-sizes")                 ? InputField::BatchSizes
        : name == QLatin1String("--device")                      ? InputField::DeviceKind
        : name == QLatin1String("--seed")                        ? InputField::Seed
                                                                 : InputField::None;
    if (field == InputField::None) {
        return Result::failure(
            QStringLiteral("the simulator's convergence model refused its arguments: %1")
                .arg(message));
    }
    return Result::badInput(field, match.captured(2));
}

// The target accuracy of a workload's convergence model in the simulator's profiles, if any.
std::optional<double> simulatedTargetAccuracy(const QString &scripts, const QString &workload)
{
    QFile file(scripts + QStringLiteral("/simulator/profiles.json"));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonValue accuracy = QJsonDocument::fromJson(file.readAll())
                                    .object()
                                    .value(QLatin1String("workloads"))
                                    .toObject()
                                    .value(workload)
                                    .toObject()
                                    .value(QLatin1String("convergence"))
                                    .toObject()
                                    .value(QLatin1String("target_accuracy"));
    if (!accuracy.isDouble() || accuracy.toDouble() <= 0 || accuracy.toDouble() > 1)
        return std::nullopt;
    return accuracy.toDouble();
}

}  // namespace

Expected<ConvergenceRelation> simulatedConvergence(const QString &workload,
                                                   const QVector<int> &batchSizes,
                                                   const QString &deviceKind, quint64 seed)
{
    using Result = Expected<ConvergenceRelation>;
    if (workload.trimmed().isEmpty()) {
        return Result::badInput(InputField::Workload,
                                QStringLiteral("expected a workload of the simulator, e.g. "
                                               "resnet18"));
    }
    if (batchSizes.size() < ConvergenceRelation::kMinPoints) {
        return Result::badInput(InputField::BatchSizes,
                                QStringLiteral("%1 batch size(s); expected at least %2 to relate "
                                               "(a list such as 8,16,32,64,128)")
                                    .arg(batchSizes.size())
                                    .arg(ConvergenceRelation::kMinPoints));
    }
    const Expected<QString> scripts = SimulatorLauncher::scriptDirectory();
    if (!scripts)
        return passOn<Result>(scripts);
    QStringList sizes;
    for (int size : batchSizes)
        sizes.append(QString::number(size));
    // -B: an installed simulator lives in /usr/share; it must not write byte-code caches there.
    const QStringList arguments {QStringLiteral("-B"),
                                 *scripts + QLatin1Char('/') + QLatin1String(kScript),
                                 QStringLiteral("--workload"),
                                 workload,
                                 QStringLiteral("--batch-sizes"),
                                 sizes.join(QLatin1Char(',')),
                                 QStringLiteral("--device"),
                                 deviceKind,
                                 QStringLiteral("--seed"),
                                 QString::number(seed)};
    const Expected<Finished> finished = runPython(arguments);
    if (!finished)
        return passOn<Result>(finished);
    if (finished->exitCode == 2)
        return refused<Result>(finished->err);
    if (finished->exitCode != 0) {
        return Result::failure(QStringLiteral("the simulator's convergence model failed (exit "
                                              "status %1): %2")
                                   .arg(finished->exitCode)
                                   .arg(QString::fromUtf8(finished->err).trimmed()));
    }
    const Expected<ConvergenceCsv::Parsed> parsed =
        ConvergenceCsv::parse(finished->out, QStringLiteral("convergence.py output"));
    if (!parsed)
        return Result::failure(parsed.error());  // our own program's output: not the user's
    ConvergenceRelation relation;
    relation.workload = workload;
    relation.points = parsed->points;
    relation.targetAccuracy = simulatedTargetAccuracy(*scripts, workload);
    relation.provenance = QLatin1String(ConvergenceProvenance::kSimulated);
    relation.source = QLatin1String(kSimulatedSource);
    return relation;
}

Expected<ConvergenceRelation> importedConvergence(const QString &path, const QString &workload,
                                                  std::optional<double> datasetSamples)
{
    using Result = Expected<ConvergenceRelation>;
    if (workload.trimmed().isEmpty())
        return Result::badInput(InputField::Workload, QStringLiteral("expected a workload name"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return Result::failure(QStringLiteral("%1: cannot read: %2").arg(path, file.errorString()),
                               ErrorKind::BadInput);
    }
    const QString fileName = QFileInfo(path).fileName();
    if (file.size() > kMaxFileSize) {
        return Result::failure(QStringLiteral("%1: %2 bytes; expected a samples-to-accuracy file "
                                              "of at most %3 batch sizes (well under 1 MiB)")
                                   .arg(fileName)
                                   .arg(file.size())
                                   .arg(ConvergenceRelation::kMaxBatch),
                               ErrorKind::BadInput);
    }
    const Expected<ConvergenceCsv::Parsed> parsed =
        ConvergenceCsv::parse(file.readAll(), fileName, datasetSamples);
    if (!parsed)
        return passOn<Result>(parsed);
    ConvergenceRelation relation;
    relation.workload = workload;
    relation.points = parsed->points;
    relation.targetAccuracy = parsed->targetAccuracy;
    relation.provenance = QLatin1String(ConvergenceProvenance::kUser);
    relation.source = fileName;
    return relation;
}

}  // namespace ptwb::workflows
