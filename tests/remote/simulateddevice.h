#pragma once

// A simulated AGX Orin of a test's own (its state in a directory of its own, at real speed, so
// an armed revert's deadline is in wall seconds), reached through a connector that can be made
// to fail after some connections, like a network cut.

#include "deviceclient.h"
#include "localprocesstransport.h"
#include "modes/devicespec.h"
#include "simulatorlauncher.h"

#include <QSignalSpy>

#include <functional>

namespace ptwb::test {

// A mode of the AGX Orin by positions in its frequency tables.
inline PowerMode orinMode(int cores, int cpuIndex, int gpuIndex, int emcIndex)
{
    const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
    PowerMode mode;
    mode.cores = cores;
    mode.cpuKHz = spec.values(Dimension::Cpu).at(cpuIndex);
    mode.gpuHz = spec.values(Dimension::Gpu).at(gpuIndex);
    mode.emcHz = spec.values(Dimension::Emc).at(emcIndex);
    return mode;
}

class SimulatedDevice
{
public:
    explicit SimulatedDevice(QString stateDirectory, QStringList faults = {})
        : m_state(std::move(stateDirectory))
        , m_faults(std::move(faults))
    {
    }

    // Connections allowed before every later one fails; -1: never.
    void failAfter(int connections)
    {
        m_connections = 0;
        m_failAfter = connections;
    }

    std::function<Expected<Transport *>()> connector()
    {
        return [this]() -> Expected<Transport *> {
            if (m_failAfter >= 0 && m_connections >= m_failAfter)
                return Expected<Transport *>::failure(QStringLiteral("no route to host (test)"));
            ++m_connections;
            return transport();
        };
    }

    // The mode the device runs now, over a connection of its own (never cut).
    QString mode()
    {
        Expected<Transport *> t = transport();
        if (!t)
            return t.error();
        DeviceClient client(*t);
        QSignalSpy ready(&client, &DeviceClient::ready);
        client.connectToDevice();
        if (!ready.wait(20000))
            return QStringLiteral("unreachable");
        return client.info().mode.toCanonical();
    }

private:
    Expected<Transport *> transport() const
    {
        SimulatorOptions options;
        options.stateDirectory = m_state;
        options.speed = 1;
        options.faults = m_faults;
        Expected<LocalProcessTransport *> t = SimulatorLauncher::transport(options);
        if (!t)
            return Expected<Transport *>::failure(t.error());
        return static_cast<Transport *>(*t);
    }

    QString m_state;
    QStringList m_faults;
    int m_connections = 0;
    int m_failAfter = -1;
};

}  // namespace ptwb::test
