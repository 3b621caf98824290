#include "simulatorlauncher.h"

#include "localprocesstransport.h"
#include "util/installlayout.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace ptwb {

namespace {

const char kScript[] = "simulator/ptwb_simjetson.py";

}  // namespace

Expected<QString> SimulatorLauncher::scriptDirectory()
{
    QStringList candidates;
    const QString fromEnvironment = qEnvironmentVariable("PTWB_REMOTE_DIR");
    if (!fromEnvironment.isEmpty())
        candidates.append(fromEnvironment);
    candidates.append(QString::fromStdString(install::dataDirectory()) + QStringLiteral("/remote"));
    if (install::runningFromBuildTree())
        candidates.append(QStringLiteral(PTWB_SOURCE_REMOTE_DIR));
    for (const QString &directory : candidates) {
        if (QFileInfo::exists(directory + QLatin1Char('/') + QLatin1String(kScript)))
            return QDir::cleanPath(directory);
    }
    return Expected<QString>::failure(
        QStringLiteral("the simulated Jetson's scripts (%1) are in none of: %2")
            .arg(QLatin1String(kScript), candidates.join(QStringLiteral(", "))));
}

QString SimulatorLauncher::defaultStateDirectory(const QString &deviceKind)
{
    return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
        QStringLiteral("/simulated-") + deviceKind;
}

Expected<LocalProcessTransport *> SimulatorLauncher::transport(const SimulatorOptions &options)
{
    Expected<QString> directory = scriptDirectory();
    if (!directory)
        return Expected<LocalProcessTransport *>::failure(directory.error());
    const QString state = options.stateDirectory.isEmpty()
        ? defaultStateDirectory(options.deviceKind)
        : options.stateDirectory;
    if (!QDir().mkpath(state)) {
        return Expected<LocalProcessTransport *>::failure(
            QStringLiteral("cannot create the simulator's state directory %1").arg(state));
    }
    QStringList arguments {*directory + QLatin1Char('/') + QLatin1String(kScript),
                           QStringLiteral("--device"),
                           options.deviceKind,
                           QStringLiteral("--state"),
                           state,
                           QStringLiteral("--speed"),
                           QString::number(options.speed),
                           QStringLiteral("--seed"),
                           QString::number(options.seed)};
    for (const QString &fault : options.faults)
        arguments << QStringLiteral("--fault") << fault;
    // -u: unbuffered, so every reply line leaves at once even if the agent forgets to flush.
    // -B: an installed simulator lives in /usr/share; it must not write byte-code caches there.
    arguments.prepend(QStringLiteral("-B"));
    arguments.prepend(QStringLiteral("-u"));
    return new LocalProcessTransport(QStringLiteral("python3"), arguments,
                                     QStringLiteral("simulated %1").arg(options.deviceKind));
}

}  // namespace ptwb
