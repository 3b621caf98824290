#include "devicetransports.h"

#include "devicelist.h"
#include "devicetarget.h"
#include "dialogsshprompts.h"
#include "localprocesstransport.h"
#include "simulatorlauncher.h"
#include "sshlaunch.h"
#include "sshtransport.h"

#include <memory>

namespace ptwb::ui {

Expected<Transport *> deviceTransport(const QString &text, bool sudo, QWidget *window,
                                      const QString &keyFile)
{
    using Result = Expected<Transport *>;
    Expected<DeviceTarget> target = DeviceTarget::parse(text);
    if (!target)
        return Result::failure(target.error(), target.errorKind());
    if (target->kind == DeviceTarget::Kind::Ssh) {
        Expected<SshLaunch> agent = SshLaunches::agent();
        if (!agent)
            return Result::failure(agent.error());
        SshOptions options = SshLaunches::optionsFor(*target);
        options.launch = *agent;
        options.useSudo = sudo;
        if (!keyFile.isEmpty())
            options.identityFiles.prepend(keyFile);
        options.prompts = std::make_shared<DialogSshPrompts>(window);
        return static_cast<Transport *>(new SshTransport(options));
    }
    SimulatorOptions options;
    options.deviceKind = target->deviceKind;
    Expected<LocalProcessTransport *> local = SimulatorLauncher::transport(options);
    if (!local)
        return Result::failure(local.error());
    return static_cast<Transport *>(*local);
}

Expected<Transport *> deviceTransport(const DeviceEntry &entry, QWidget *window)
{
    return deviceTransport(entry.target, entry.sudo, window, entry.keyFile);
}

}  // namespace ptwb::ui
