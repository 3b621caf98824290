#include "sshlaunch.h"

#include <QDir>
#include <QFileInfo>

namespace ptwb::SshLaunches {

Expected<SshLaunch> agent()
{
    Expected<QString> directory = SimulatorLauncher::scriptDirectory();
    if (!directory)
        return Expected<SshLaunch>::failure(directory.error());
    SshLaunch launch;
    for (const QString &name : {QStringLiteral("ptwb_agent.py"), QStringLiteral("ptwb_helper.py"),
                                QStringLiteral("ptwb_launch.py")}) {
        const QString script = *directory + QStringLiteral("/agent/") + name;
        if (!QFileInfo::exists(script))
            return Expected<SshLaunch>::failure(QStringLiteral("%1 is missing").arg(script));
        launch.files.append({script, name});
    }
    // The armed revert is the installed helper's (root-owned state), so no state directory of
    // the login user's is named here.
    launch.argv = QStringList {QStringLiteral("python3"), QStringLiteral("{dir}/ptwb_agent.py")};
    return launch;
}

Expected<SshLaunch> simulator(const SimulatorOptions &options)
{
    Expected<QString> directory = SimulatorLauncher::scriptDirectory();
    if (!directory)
        return Expected<SshLaunch>::failure(directory.error());
    const QString state = options.stateDirectory.isEmpty()
        ? SimulatorLauncher::defaultStateDirectory(options.deviceKind)
        : options.stateDirectory;
    if (!QDir().mkpath(state)) {
        return Expected<SshLaunch>::failure(
            QStringLiteral("cannot create the simulator's state directory %1").arg(state));
    }
    SshLaunch launch;
    launch.argv = QStringList {
        QStringLiteral("python3"),
        QStringLiteral("-u"),
        QDir(*directory).absoluteFilePath(QStringLiteral("simulator/ptwb_simjetson.py")),
        QStringLiteral("--device"),
        options.deviceKind,
        QStringLiteral("--state"),
        QDir(state).absolutePath(),
        QStringLiteral("--speed"),
        QString::number(options.speed),
        QStringLiteral("--seed"),
        QString::number(options.seed)};
    for (const QString &fault : options.faults)
        launch.argv << QStringLiteral("--fault") << fault;
    return launch;
}

SshOptions optionsFor(const DeviceTarget &target)
{
    SshOptions options;
    options.host = target.host;
    options.user = target.user;
    options.port = target.port == 22 ? 0 : target.port;
    options.description = target.displayName();
    return options;
}

}  // namespace ptwb::SshLaunches
