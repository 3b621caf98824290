#include "devicetargets.h"

#include "devicetarget.h"
#include "localprocesstransport.h"
#include "simulatorlauncher.h"
#include "sshlaunch.h"
#include "sshtransport.h"
#include "terminalprompts.h"

namespace ptwb::cli {

namespace {

SimulatorOptions simulatorOptions(const QCommandLineParser &parser, const QString &kind, int index,
                                  int count, double defaultSpeed)
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
                                const QString &name, int index, int count, double defaultSpeed)
{
    SshOptions ssh = SshLaunches::optionsFor(target);
    Expected<SshLaunch> launch = parser.isSet(QStringLiteral("remote-simulator"))
        ? SshLaunches::simulator(simulatorOptions(
              parser, parser.value(QStringLiteral("remote-simulator")), index, count, defaultSpeed))
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
    return SweepDevice {name, [ssh]() -> Expected<Transport *> { return new SshTransport(ssh); }};
}

}  // namespace

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
                                     "drop-after:N, reboot-after:N, throttle:F, "
                                     "decreasing-only); repeatable."),
                      QStringLiteral("SPEC")});
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

Expected<TargetDevices> targetDevices(const QCommandLineParser &parser, double defaultSpeed)
{
    using Result = Expected<TargetDevices>;
    if (parser.isSet(QStringLiteral("sim-speed"))) {
        const double speed = parser.value(QStringLiteral("sim-speed")).toDouble();
        if (!(speed >= 1 && speed <= 10000))
            return Result::failure(QStringLiteral("--sim-speed: expected 1..10000"),
                                   ErrorKind::BadInput);
    }
    TargetDevices out;
    QStringList names;
    const QStringList targets =
        parser.values(QStringLiteral("target")).join(QLatin1Char(',')).split(QLatin1Char(','));
    const int count = int(targets.size());
    for (int i = 0; i < count; ++i) {
        Expected<DeviceTarget> target = DeviceTarget::parse(targets[i].trimmed());
        if (!target)
            return Result::failure(QStringLiteral("--target: %1").arg(target.error()),
                                   ErrorKind::BadInput);
        const QString name = count > 1 ? QStringLiteral("%1#%2").arg(target->toString()).arg(i + 1)
                                       : target->toString();
        QString kind;
        Expected<SweepDevice> device = Expected<SweepDevice>::failure(QString());
        if (target->kind == DeviceTarget::Kind::Ssh) {
            const bool remoteSimulator = parser.isSet(QStringLiteral("remote-simulator"));
            kind = parser.value(remoteSimulator ? QStringLiteral("remote-simulator")
                                                : QStringLiteral("kind"));
            out.simulated = out.simulated && remoteSimulator;
            device = sshDevice(parser, *target, name, i, count, defaultSpeed);
        } else {
            kind = target->deviceKind;
            const SimulatorOptions options = simulatorOptions(parser, kind, i, count, defaultSpeed);
            device = SweepDevice {name, [options]() -> Expected<Transport *> {
                                      Expected<LocalProcessTransport *> transport =
                                          SimulatorLauncher::transport(options);
                                      if (!transport)
                                          return Expected<Transport *>::failure(transport.error());
                                      return static_cast<Transport *>(*transport);
                                  }};
            // A missing simulator is an error now, not a round of reconnects.
            if (Expected<QString> scripts = SimulatorLauncher::scriptDirectory(); !scripts)
                return Result::failure(scripts.error());
        }
        if (!device)
            return Result::failure(device.error(), device.errorKind());
        if (!out.kind.isEmpty() && out.kind != kind) {
            return Result::failure(QStringLiteral("--target: a fleet must be of one kind, not "
                                                  "%1 and %2")
                                       .arg(out.kind, kind),
                                   ErrorKind::BadInput);
        }
        out.kind = kind;
        names.append(name);
        out.devices.append(*device);
    }
    out.display = names.join(QLatin1Char(','));
    return out;
}

}  // namespace ptwb::cli
