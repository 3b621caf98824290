#include "deviceprobe.h"

#include "deviceclient.h"
#include "modes/devicespec.h"
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
        if (device.simulated)
            continue;  // a simulated device is the kind its target names
        const Expected<DeviceInfo> info = probeDevice(device, timeoutMs);
        // Not reachable now: a device given a kind is planned in that kind's built-in table (the
        // sweep then retries, gives up and stays resumable); without one nothing can be planned.
        if (!info && !device.kind.isEmpty())
            continue;
        if (!info)
            return passOn<Result>(info);
        if (info->kind.isEmpty())
            return Result::badInput(
                InputField::Target,
                QStringLiteral("%1: %2").arg(device.address, info->kindProblem));
        // A kind given beforehand names the family expected; the tables are the device's own.
        const QString family = DeviceSpec::lookup(info->kind)->family();
        if (!device.kind.isEmpty() && device.kind != family && device.kind != info->kind) {
            return Result::badInput(InputField::Target,
                                    QStringLiteral("%1 is a %2, not a %3 (its tables: %4)")
                                        .arg(device.address, family, device.kind, info->kind));
        }
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
