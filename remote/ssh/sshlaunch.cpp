#include "sshlaunch.h"

#include <QDir>
#include <QFileInfo>

namespace ptwb::SshLaunches {

Expected<SshLaunch> agent()
{
    Expected<QString> directory = SimulatorLauncher::scriptDirectory();
    if (!directory)
        return Expected<SshLaunch>::failure(directory.error());
    const QString script = *directory + QStringLiteral("/agent/ptwb_agent.py");
    if (!QFileInfo::exists(script))
        return Expected<SshLaunch>::failure(QStringLiteral("the agent %1 is missing").arg(script));
    SshLaunch launch;
    launch.files.append({script, QStringLiteral("ptwb_agent.py")});
    // One state directory for every connection (relative to the login's home, where the
    // command starts), so a confirmation over a new connection reaches the revert armed on
    // an earlier one; $XDG_RUNTIME_DIR may differ between sessions or vanish with the last one.
    launch.argv = QStringList {QStringLiteral("python3"), QStringLiteral("{dir}/ptwb_agent.py"),
                               QStringLiteral("--state-dir"),
                               QStringLiteral(".cache/powertrain-workbench/agent-state")};
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
