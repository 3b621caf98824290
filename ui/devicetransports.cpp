#include "devicetransports.h"

#include "devicelist.h"
#include "dialogsshprompts.h"

#include <memory>

namespace ptwb::ui {

workflows::ConnectionOptions connectionOptions(const DeviceEntry &entry, QWidget *window,
                                               double simulatorSpeed)
{
    workflows::ConnectionOptions options;
    if (!entry.keyFile.isEmpty())
        options.identityFiles.append(entry.keyFile);
    options.prompts = std::make_shared<DialogSshPrompts>(window);
    options.deviceName = entry.name;
    options.simulatorSpeed = simulatorSpeed;
    return options;
}

Expected<workflows::DeviceEndpoint> deviceEndpoint(const DeviceEntry &entry, QWidget *window,
                                                   double simulatorSpeed)
{
    const workflows::ConnectionOptions options = connectionOptions(entry, window, simulatorSpeed);
    Expected<workflows::DeviceEndpoint> endpoint = workflows::endpoint(entry.target, options);
    if (endpoint && !entry.name.isEmpty())
        endpoint->name = entry.name;  // what the person calls it, in the views and dialogs
    return endpoint;
}

Expected<Transport *> deviceTransport(const DeviceEntry &entry, QWidget *window)
{
    const Expected<workflows::DeviceEndpoint> endpoint = deviceEndpoint(entry, window);
    if (!endpoint)
        return passOn<Expected<Transport *>>(endpoint);
    return endpoint->connect();
}

}  // namespace ptwb::ui
