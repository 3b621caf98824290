#pragma once

#include "deviceclient.h"
#include "util/expected.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>

namespace ptwb {

// Applies a power mode the safe way, for a window: arm the device-side revert, apply, verify
// over a second connection, count down (the person may cancel), then confirm. Cancelled: the
// previous mode is put back at once. Not confirmable (the mode cut the device off, the second
// connection fails): the device reverts by itself at the armed deadline, and the applier
// watches it do so through the first connection. Event-driven on the thread that owns it.
//
// A device that accepts lower clocks only until a reboot (hello's mode_changes "decreasing")
// takes a lower mode the same way (its helper reboots to put a higher one back). A mode that
// raises a clock there needs a reboot: without Options::allowReboot the applier changes nothing
// and says so (needsReboot()); with it, it applies by reboot (modeapplierreboot.cpp): the mode is
// staged on the device, which reboots into it with the revert armed at boot, and the applier
// reconnects, checks, counts down and confirms. Unconfirmed, the device reboots back to the
// previous mode by itself.
class ModeApplier : public QObject
{
    Q_OBJECT

public:
    // A fresh transport to the device for each connection, or why there is none.
    using Connect = std::function<Expected<Transport *>()>;

    struct Options
    {
        int keepAfterSeconds = 20;  // the countdown before confirming
        int revertMarginSeconds = 30;  // the armed deadline is countdown + this
        double deviceSpeed = 1.0;  // device seconds per wall second (a simulated clock)
        // Apply by reboot when the device needs one for this mode (see above).
        bool allowReboot = false;
        // Device seconds a reboot may take before the device answers again.
        int rebootWaitSeconds = 300;
    };

    enum class Phase {
        Idle,
        Connecting,
        Applying,
        Rebooting,
        Verifying,
        CountingDown,
        Confirming,
        Restoring,
        WaitingForRevert,
        Done
    };

    ModeApplier(Connect connector, Options options, QObject *parent = nullptr);
    ~ModeApplier() override;

    // One apply per object.
    void start(const PowerMode &mode);
    // Before the confirmation: puts the previous mode back (and disarms the revert).
    void cancel();
    // Skips the rest of the countdown.
    void confirmNow();

    Phase phase() const { return m_phase; }
    const PowerMode &previousMode() const { return m_previous; }
    // Finished without changing anything because the mode needs a reboot that was not allowed.
    bool needsReboot() const { return m_needsReboot; }

Q_SIGNALS:
    void phaseChanged(ptwb::ModeApplier::Phase phase, const QString &text);
    void countdown(int secondsLeft);
    // `kept`: the device runs the requested mode, confirmed. Otherwise `now` is what it runs
    // (the previous mode, or unknown when it cannot be reached).
    void finished(bool kept, const QString &message);

private:
    void setPhase(Phase phase, const QString &text);
    void onFirstReady(const DeviceInfo &info);
    void onApplied(const DeviceReply &reply);
    void connectSecond();
    void onSecondReady(const DeviceInfo &info);
    void startCountdown();
    // Apply by reboot (modeapplierreboot.cpp).
    void stageAndReboot(const DeviceInfo &info);
    void rebootStaged();
    void awaitReboot();
    void retrySoon();
    void onBackFromReboot(const DeviceInfo &info);
    void leaveToRevert(const QString &why);
    void tick();
    void confirm();
    void restore(const QString &why);
    void waitForRevert(const QString &why);
    void pollRevert();
    void finish(bool kept, const QString &message);
    qint64 deadlineWallMs() const;
    qint64 wallMs(double deviceSeconds) const;

    Connect m_connect;
    Options m_options;
    Phase m_phase = Phase::Idle;
    PowerMode m_mode;
    PowerMode m_previous;
    QString m_token;
    QString m_target;
    std::unique_ptr<DeviceClient> m_first;  // its agent holds the revert timer
    std::unique_ptr<DeviceClient> m_second;  // verifies and confirms
    QElapsedTimer m_sinceArmed;
    QTimer m_ticker;
    int m_secondsLeft = 0;
    bool m_cancelRequested = false;
    bool m_needsReboot = false;
    bool m_byReboot = false;  // applying by reboot
    QString m_oldBootId;
    QElapsedTimer m_sinceReboot;
    qint64 m_deadlineMs = -1;  // the armed deadline in wall ms from m_sinceArmed; -1: options'
};

}  // namespace ptwb

Q_DECLARE_METATYPE(ptwb::ModeApplier::Phase)
