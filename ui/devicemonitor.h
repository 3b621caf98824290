#pragma once

#include "modes/powermode.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace ptwb {
class DeviceCall;
class DeviceClient;
}  // namespace ptwb

namespace ptwb::ui {

// Polls a connected device for its live readings while someone looks at them: the total power
// every intervalMs (wall clock) and the current mode every modeEveryTicks intervals.
//
// Each tick asks for ONE sample (sample_power with count 1) rather than keeping one long
// streaming call open: the agent runs one streaming operation at a time and queues everything
// else behind it, so a long-lived stream would hold up a sweep or an apply. A one-sample call
// ends by itself within milliseconds, so stopping never leaves a call dangling; a tick is skipped
// while the previous call is still out, and a `busy` answer (a sweep is profiling) is ignored.
class DeviceMonitor : public QObject
{
    Q_OBJECT

public:
    static constexpr int kIntervalMs = 500;
    // Above any device's total power: a sample beyond it is no reading and is not plotted.
    static constexpr double kMaxPlottedWatts = 1e5;
    static constexpr int kModeEveryTicks = 10;  // the mode is read every 5 s

    explicit DeviceMonitor(QObject *parent = nullptr);

    // Follows `client` (not owned); null stops.
    void setClient(DeviceClient *client);
    // Polls only while active (the view is shown), not suspended and the client is ready.
    void setActive(bool active);
    // For the owner: e.g. while a sweep streams `profile` over the same client, which one
    // sample call in between could make fail with `busy`.
    void setSuspended(bool suspended);
    bool isPolling() const { return m_timer.isActive(); }

public Q_SLOTS:
    // Asks for the mode now (e.g. after an apply elsewhere).
    void refreshMode();

Q_SIGNALS:
    void powerSampled(double totalW);
    void modeRead(const ptwb::PowerMode &mode);

private:
    void updatePolling();
    void tick();

    QPointer<DeviceClient> m_client;
    QPointer<DeviceCall> m_sample;
    QPointer<DeviceCall> m_mode;
    QTimer m_timer;
    int m_ticks = 0;
    bool m_active = false;
    bool m_suspended = false;
};

}  // namespace ptwb::ui
