#include "devicesetup.h"

namespace ptwb::workflows {

Expected<HelperSetup::Report> setupHelper(const QString &target, const ConnectionOptions &options,
                                          QByteArray password)
{
    using Result = Expected<HelperSetup::Report>;
    const Expected<DeviceTarget> parsed = DeviceTarget::parse(target);
    Result result = !parsed ? Result::badInput(InputField::Target, parsed.error())
        : parsed->kind != DeviceTarget::Kind::Ssh
        ? Result::badInput(InputField::Target,
                           QStringLiteral("%1 is simulated: its helper needs no setup (it runs "
                                          "as you, against the simulated kernel)")
                               .arg(target))
        : HelperSetup::run(sshOptionsFor(*parsed, options), password);
    password.fill('\0');
    return result;
}

}  // namespace ptwb::workflows
