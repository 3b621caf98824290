#include "deviceprobe.h"

#include "deviceclient.h"
#include "transport.h"
#include "util/printable.h"

#include <QEventLoop>
#include <QTimer>

#include <memory>

namespace ptwb::workflows {

Expected<DeviceInfo> probeDevice(const DeviceEndpoint &device, int timeoutMs)
{
    using Result = Expected<DeviceInfo>;
    Expected<Transport *> transport = device.connect();
    if (!transport)
        return Result::failure(QStringLiteral("%1: %2").arg(device.address, transport.error()));
    const auto client = std::make_unique<DeviceClient>(*transport);
    std::optional<Result> outcome;
    QEventLoop loop;
    QObject::connect(client.get(), &DeviceClient::ready, &loop, [&](const DeviceInfo &info) {
        outcome = Result(info);
        loop.quit();
    });
    QObject::connect(client.get(), &DeviceClient::disconnected, &loop, [&](const QString &why) {
        if (!outcome)
            outcome =
                Result::failure(QStringLiteral("%1: %2").arg(device.address, printable(why, 1000)));
        loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, [&] {
        if (!outcome)
            outcome = Result::failure(QStringLiteral("%1: no hello within %2 s")
                                          .arg(device.address)
                                          .arg(timeoutMs / 1000));
        loop.quit();
    });
    client->connectToDevice();
    if (!outcome)
        loop.exec();
    client->disconnect(&loop);
    client->disconnectFromDevice();
    return *outcome;
}

Expected<QVector<DeviceEndpoint>> withReportedKinds(QVector<DeviceEndpoint> devices, int timeoutMs)
{
    using Result = Expected<QVector<DeviceEndpoint>>;
    for (DeviceEndpoint &device : devices) {
        if (!device.kind.isEmpty())
            continue;
        const Expected<DeviceInfo> info = probeDevice(device, timeoutMs);
        if (!info)
            return passOn<Result>(info);
        if (info->kind.isEmpty())
            return Result::badInput(
                InputField::Target,
                QStringLiteral("%1: %2").arg(device.address, info->kindProblem));
        device.kind = info->kind;
        if (device.storeName.isEmpty())
            device.storeName = info->kind;
    }
    for (const DeviceEndpoint &device : std::as_const(devices)) {
        if (device.kind != devices.first().kind)
            return Result::badInput(InputField::Target,
                                    QStringLiteral("a fleet must be of one kind, not %1 and %2")
                                        .arg(devices.first().kind, device.kind));
    }
    return devices;
}

}  // namespace ptwb::workflows
