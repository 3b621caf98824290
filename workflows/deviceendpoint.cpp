#include "deviceendpoint.h"

#include "devicetarget.h"
#include "localprocesstransport.h"
#include "modes/devicespec.h"
#include "simulatorlauncher.h"
#include "sshlaunch.h"
#include "sshtransport.h"

namespace ptwb::workflows {

namespace {

SimulatorOptions simulatorOptions(const ConnectionOptions &options, const QString &kind, int index,
                                  int count)
{
    SimulatorOptions sim;
    sim.deviceKind = kind;
    const QString base = options.simulatorState.isEmpty()
        ? SimulatorLauncher::defaultStateDirectory(kind)
        : options.simulatorState;
    sim.stateDirectory = count > 1 ? QStringLiteral("%1/%2").arg(base).arg(index + 1) : base;
    sim.speed = options.simulatorSpeed;
    sim.faults = options.simulatorFaults;
    sim.seed = quint64(index + 1);
    return sim;
}

Expected<DeviceEndpoint> simulatedEndpoint(const DeviceTarget &target,
                                           const ConnectionOptions &options, int index, int count)
{
    // A missing simulator is an error now, not a round of reconnects.
    if (const Expected<QString> scripts = SimulatorLauncher::scriptDirectory(); !scripts)
        return passOn<Expected<DeviceEndpoint>>(scripts);
    DeviceEndpoint out;
    out.name = target.displayName();
    out.address = target.toString();
    out.kind = target.deviceKind;
    out.simulated = true;
    out.storeName = simulatedStoreName(out.kind);
    const SimulatorOptions sim = simulatorOptions(options, out.kind, index, count);
    out.connect = [sim]() -> Expected<Transport *> {
        Expected<LocalProcessTransport *> transport = SimulatorLauncher::transport(sim);
        if (!transport)
            return passOn<Expected<Transport *>>(transport);
        return static_cast<Transport *>(*transport);
    };
    return out;
}

// A device behind ssh://: the agent uploaded and run there (or, for tests, the simulator).

Expected<DeviceEndpoint> sshEndpoint(const DeviceTarget &target, const ConnectionOptions &options,
                                     int index, int count)
{
    const bool remoteSimulator = !options.remoteSimulatorKind.isEmpty();
    DeviceEndpoint out;
    out.name = target.displayName();
    out.address = target.toString();
    out.kind = remoteSimulator ? options.remoteSimulatorKind : options.sshKind;
    out.simulated = remoteSimulator;
    if (remoteSimulator)
        out.storeName = simulatedStoreName(out.kind);
    else
        out.storeName = options.deviceName.isEmpty() ? out.kind : options.deviceName;
    Expected<SshLaunch> launch = remoteSimulator
        ? SshLaunches::simulator(simulatorOptions(options, out.kind, index, count))
        : SshLaunches::agent();
    if (!launch)
        return passOn<Expected<DeviceEndpoint>>(launch);
    SshOptions ssh = sshOptionsFor(target, options);
    ssh.launch = *launch;
    out.connect = [ssh]() -> Expected<Transport *> { return new SshTransport(ssh); };
    return out;
}

Expected<DeviceEndpoint> endpointAt(const QString &text, const ConnectionOptions &options,
                                    int index, int count)
{
    const Expected<DeviceTarget> target = DeviceTarget::parse(text);
    if (!target)
        return Expected<DeviceEndpoint>::badInput(InputField::Target, target.error());
    return target->kind == DeviceTarget::Kind::Ssh
        ? sshEndpoint(*target, options, index, count)
        : simulatedEndpoint(*target, options, index, count);
}

}  // namespace

SshOptions sshOptionsFor(const DeviceTarget &target, const ConnectionOptions &options)
{
    SshOptions ssh = SshLaunches::optionsFor(target);
    ssh.identityFiles = options.identityFiles;
    if (!options.knownHostsPath.isEmpty())
        ssh.knownHostsPath = options.knownHostsPath;
    if (!options.sshConfigPath.isEmpty())
        ssh.configPath = options.sshConfigPath;
    ssh.prompts = options.prompts;
    return ssh;
}

QString simulatedStoreName(const QString &kind)
{
    return QStringLiteral("simulated-") + kind;
}

Expected<DeviceEndpoint> endpoint(const QString &target, const ConnectionOptions &options)
{
    return endpointAt(target.trimmed(), options, 0, 1);
}

Expected<QVector<DeviceEndpoint>> fleet(const QStringList &targets,
                                        const ConnectionOptions &options)
{
    using Result = Expected<QVector<DeviceEndpoint>>;
    const QStringList texts = targets.join(QLatin1Char(',')).split(QLatin1Char(','));
    const int count = int(texts.size());
    QVector<DeviceEndpoint> out;
    for (int i = 0; i < count; ++i) {
        Expected<DeviceEndpoint> device = endpointAt(texts[i].trimmed(), options, i, count);
        if (!device)
            return passOn<Result>(device);
        if (count > 1)  // the runner tells the devices apart by name
            device->address = QStringLiteral("%1#%2").arg(device->address).arg(i + 1);
        if (!out.isEmpty() && out.first().kind != device->kind) {
            return Result::badInput(InputField::Target,
                                    QStringLiteral("a fleet must be of one kind, not %1 and %2")
                                        .arg(out.first().kind, device->kind));
        }
        // One sweep stores under one device name: simulated data never under a real device's.
        if (!out.isEmpty() && out.first().simulated != device->simulated) {
            return Result::badInput(
                InputField::Target,
                QStringLiteral("a fleet is all simulated or all real devices, not both"));
        }
        out.append(std::move(device).value());
    }
    return out;
}

}  // namespace ptwb::workflows
