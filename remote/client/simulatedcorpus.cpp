#include "simulatedcorpus.h"

#include "simulatorlauncher.h"

#include <QProcess>

namespace ptwb {

Expected<QStringList> SimulatedCorpus::arguments(const QString &deviceKind, const QString &workload,
                                                 const QString &outCsv, int sample)
{
    const Expected<QString> scripts = SimulatorLauncher::scriptDirectory();
    if (!scripts)
        return Expected<QStringList>::failure(scripts.error());
    // -B: the generator imports the installed simulator's modules; no byte-code caches there.
    QStringList out {
        QStringLiteral("-B"),         *scripts + QStringLiteral("/simulator/corpus.py"),
        QStringLiteral("--device"),   deviceKind,
        QStringLiteral("--workload"), workload,
        QStringLiteral("--out"),      outCsv};
    if (sample > 0)
        out << QStringLiteral("--sample") << QString::number(sample);
    return out;
}

Status SimulatedCorpus::generate(const QString &deviceKind, const QString &workload,
                                 const QString &outCsv, int sample)
{
    const Expected<QStringList> args = arguments(deviceKind, workload, outCsv, sample);
    if (!args)
        return Status::failure(args.error());
    QProcess generator;
    generator.start(QStringLiteral("python3"), *args);
    if (!generator.waitForFinished(60000) || generator.exitStatus() != QProcess::NormalExit ||
        generator.exitCode() != 0) {
        return Status::failure(
            QStringLiteral("the simulated corpus generator failed: %1")
                .arg(QString::fromUtf8(generator.readAllStandardError()).trimmed()));
    }
    return {};
}

}  // namespace ptwb
