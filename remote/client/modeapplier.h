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
    };

    enum class Phase {
        Idle,
        Connecting,
        Applying,
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
    void tick();
    void confirm();
    void restore(const QString &why);
    void waitForRevert(const QString &why);
    void pollRevert();
    void finish(bool kept, const QString &message);
    qint64 deadlineWallMs() const;

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
};

}  // namespace ptwb

Q_DECLARE_METATYPE(ptwb::ModeApplier::Phase)
