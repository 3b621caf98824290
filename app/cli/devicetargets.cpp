#include "devicetargets.h"

#include "deviceprobe.h"
#include "modes/modespace.h"
#include "terminalprompts.h"

namespace ptwb::cli {

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
                                     "(default: the kind of the tables it reports)."),
                      QStringLiteral("KIND")});
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

Expected<QVector<workflows::DeviceEndpoint>> targetDevices(const QCommandLineParser &parser,
                                                           double defaultSpeed, bool needKinds)
{
    using Result = Expected<QVector<workflows::DeviceEndpoint>>;
    workflows::ConnectionOptions options;
    options.simulatorSpeed = defaultSpeed;
    if (parser.isSet(QStringLiteral("sim-speed"))) {
        options.simulatorSpeed = parser.value(QStringLiteral("sim-speed")).toDouble();
        if (!(options.simulatorSpeed >= 1 && options.simulatorSpeed <= 10000))
            return Result::failure(QStringLiteral("--sim-speed: expected 1..10000"),
                                   ErrorKind::BadInput);
    }
    options.simulatorState = parser.value(QStringLiteral("sim-state"));
    options.simulatorFaults = parser.values(QStringLiteral("sim-fault"));
    options.identityFiles = parser.values(QStringLiteral("identity"));
    options.knownHostsPath = parser.value(QStringLiteral("known-hosts"));
    options.sshConfigPath = parser.value(QStringLiteral("ssh-config"));
    options.sshKind = parser.value(QStringLiteral("kind"));
    options.remoteSimulatorKind = parser.value(QStringLiteral("remote-simulator"));
    options.prompts =
        std::make_shared<TerminalPrompts>(parser.isSet(QStringLiteral("accept-new-host-key")));
    Expected<QVector<workflows::DeviceEndpoint>> devices =
        workflows::fleet(parser.values(QStringLiteral("target")), options);
    if (!devices || !needKinds)
        return devices;
    return workflows::withReportedKinds(std::move(devices).value());
}

Expected<TargetAndMode> oneTargetAndMode(const QCommandLineParser &parser, double defaultSpeed,
                                         const QString &command)
{
    using Result = Expected<TargetAndMode>;
    const Expected<QVector<workflows::DeviceEndpoint>> targets =
        targetDevices(parser, defaultSpeed, true);
    if (!targets)
        return passOn<Result>(targets);
    if (targets->size() != 1)
        return Result::failure(QStringLiteral("--target: %1 takes one device").arg(command),
                               ErrorKind::BadInput);
    const workflows::DeviceEndpoint &device = targets->first();
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(device.kind);
    if (!spec)
        return Result::failure(spec.error(), ErrorKind::BadInput);
    const Expected<PowerMode> mode = ModeSpace(*spec).parse(parser.value(QStringLiteral("mode")));
    if (!mode)
        return Result::failure(QStringLiteral("--mode: %1").arg(mode.error()), ErrorKind::BadInput);
    return TargetAndMode {device, *mode};
}

}  // namespace ptwb::cli
