#include "deviceconnection.h"

#include "deviceclient.h"
#include "devicetarget.h"
#include "devicetransports.h"
#include "localprocesstransport.h"
#include "simulatorlauncher.h"
#include "starterdata.h"

#include <QWidget>

namespace ptwb::ui {

namespace {

QString simulatedKind(const DeviceEntry &entry)
{
    if (!entry.simulated())
        return QString();
    const Expected<DeviceTarget> target = DeviceTarget::parse(entry.target);
    return target ? target->deviceKind : QString();
}

}  // namespace

DeviceConnection::DeviceConnection(QWidget *window)
    : QObject(window)
    , m_window(window)
{
}

DeviceConnection::~DeviceConnection() = default;

Status DeviceConnection::connectTo(const DeviceEntry &entry)
{
    Expected<Transport *> transport = deviceTransport(entry, m_window);
    if (!transport)
        return Status::failure(transport.error(), transport.errorKind());
    m_entry = entry;
    std::unique_ptr<DeviceClient> old = std::move(m_client);
    m_client = std::make_unique<DeviceClient>(*transport);
    connect(m_client.get(), &DeviceClient::ready, this, &DeviceConnection::onReady);
    const QString kind = simulatedKind(entry);
    const bool kindChanged = kind != m_kind;
    m_kind = kind;
    Q_EMIT clientChanged(m_client.get());
    if (kindChanged && !m_kind.isEmpty())
        Q_EMIT deviceKindChanged(m_kind);
    m_client->connectToDevice();
    old.reset();  // after the views have let go of it
    return {};
}

void DeviceConnection::onReady(const DeviceInfo &info)
{
    if (info.kind.isEmpty() || info.kind == m_kind)
        return;
    m_kind = info.kind;
    Q_EMIT deviceKindChanged(m_kind);
}

QString DeviceConnection::storeName() const
{
    return m_entry.simulated() ? StarterData::deviceName(m_kind) : m_entry.name;
}

SweepTarget DeviceConnection::sweepTarget() const
{
    SweepTarget target;
    target.deviceName = storeName();
    target.deviceKind = m_kind;
    target.simulated = m_entry.simulated();
    target.address = m_entry.target;
    const DeviceEntry entry = m_entry;
    QWidget *window = m_window;
    target.makeTransport = [entry, window] { return deviceTransport(entry, window); };
    return target;
}

ApplyTarget DeviceConnection::applyTarget() const
{
    ApplyTarget target;
    target.name = m_entry.name;
    target.deviceKind = m_kind;
    if (m_entry.simulated()) {
        // The simulated device at real speed: the armed revert's deadline is in device seconds,
        // and the countdown a person watches is in wall seconds.
        SimulatorOptions options;
        options.deviceKind = m_kind;
        options.speed = 1;
        target.connect = [options]() -> Expected<Transport *> {
            Expected<LocalProcessTransport *> t = SimulatorLauncher::transport(options);
            if (!t)
                return Expected<Transport *>::failure(t.error());
            return static_cast<Transport *>(*t);
        };
    } else {
        const DeviceEntry entry = m_entry;
        QWidget *window = m_window;
        target.connect = [entry, window] { return deviceTransport(entry, window); };
    }
    return target;
}

}  // namespace ptwb::ui
