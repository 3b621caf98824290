#pragma once

#include "deviceendpoint.h"
#include "helpersetup.h"

namespace ptwb::workflows {

// Installs the privileged helper on an ssh:// device (remote/ssh/helpersetup.h): what `ptwb device
// setup` and the Devices view's Set up both run. Blocking; run it off the GUI thread. The
// password goes to sudo on the device's stdin only and is wiped here after use. A target that is
// not ssh:// is BadInput about InputField::Target.
Expected<HelperSetup::Report> setupHelper(const QString &target, const ConnectionOptions &options,
                                          QByteArray password);

}  // namespace ptwb::workflows
