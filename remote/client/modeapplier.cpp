#include "modeapplier.h"

#include "sweep/sweepplan.h"

#include <cmath>

namespace ptwb {

namespace {

constexpr int kRevertPollMs = 500;
// How long past the armed deadline the applier keeps looking for the revert.
constexpr int kRevertGraceMs = 10000;

}  // namespace

ModeApplier::ModeApplier(Connect connector, Options options, QObject *parent)
    : QObject(parent)
    , m_connect(std::move(connector))
    , m_options(options)
{
    qRegisterMetaType<ptwb::ModeApplier::Phase>();
    m_ticker.setInterval(1000);
    connect(&m_ticker, &QTimer::timeout, this, &ModeApplier::tick);
}

ModeApplier::~ModeApplier() = default;

void ModeApplier::setPhase(Phase phase, const QString &text)
{
    m_phase = phase;
    Q_EMIT phaseChanged(phase, text);
}

qint64 ModeApplier::wallMs(double deviceSeconds) const
{
    return qint64(std::ceil(deviceSeconds * 1000 / qMax(0.001, m_options.deviceSpeed)));
}

qint64 ModeApplier::deadlineWallMs() const
{
    if (m_deadlineMs >= 0)
        return m_deadlineMs;
    return wallMs(m_options.keepAfterSeconds + m_options.revertMarginSeconds);
}

void ModeApplier::start(const PowerMode &mode)
{
    if (m_phase != Phase::Idle)
        return;
    m_mode = mode;
    setPhase(Phase::Connecting, tr("Connecting to the device…"));
    Expected<Transport *> transport = m_connect();
    if (!transport) {
        finish(false, tr("Cannot reach the device: %1").arg(transport.error()));
        return;
    }
    m_first = std::make_unique<DeviceClient>(*transport);
    m_target = (*transport)->description();
    connect(m_first.get(), &DeviceClient::ready, this, &ModeApplier::onFirstReady);
    connect(m_first.get(), &DeviceClient::disconnected, this, [this](const QString &reason) {
        if (m_phase == Phase::Connecting || m_phase == Phase::Applying)
            finish(false, tr("The device dropped the connection: %1").arg(reason));
    });
    m_first->connectToDevice();
}

void ModeApplier::onFirstReady(const DeviceInfo &info)
{
    if (m_phase != Phase::Connecting)
        return;
    m_previous = info.mode;
    if (m_previous == m_mode) {
        finish(true, tr("%1 already runs %2").arg(m_target, m_mode.toShort()));
        return;
    }
    if (m_cancelRequested) {
        finish(false, tr("Cancelled before anything changed"));
        return;
    }
    // Such a device refuses a raise until it reboots (a lower mode goes the usual way: its
    // helper reboots to put the previous one back if it must).
    if (info.decreasingOnly() && !SweepPlan::lowersOrKeeps(m_previous, m_mode)) {
        if (m_options.allowReboot) {
            stageAndReboot(info);
            return;
        }
        m_needsReboot = true;
        finish(false,
               tr("%1 accepts lower clocks only until a reboot, and %2 raises one from %3: "
                  "apply it by reboot (the device restarts in it and goes back to %3 unless "
                  "you confirm after the reboot); nothing was changed")
                   .arg(m_target, m_mode.toShort(), m_previous.toShort()));
        return;
    }
    setPhase(Phase::Applying,
             tr("Arming the device-side revert and applying %1…").arg(m_mode.toShort()));
    DeviceCall *arm =
        m_first->armRevert(m_options.keepAfterSeconds + m_options.revertMarginSeconds);
    connect(arm, &DeviceCall::finished, this, [this](const DeviceReply &armed) {
        if (m_phase != Phase::Applying)
            return;
        if (!armed.ok) {
            finish(false,
                   tr("The device would not arm a revert (%1); nothing was applied")
                       .arg(armed.error.text()));
            return;
        }
        m_token = armed.result.value(QLatin1String("token")).toString();
        m_sinceArmed.start();
        connect(m_first->applyMode(m_mode), &DeviceCall::finished, this, &ModeApplier::onApplied);
    });
}

void ModeApplier::onApplied(const DeviceReply &reply)
{
    if (m_phase != Phase::Applying)
        return;
    if (!reply.ok) {
        // The agent puts the previous mode back when a write is refused; the armed revert
        // does it again at the deadline, which is harmless.
        finish(false,
               tr("The device refused %1: %2. It stays in %3.")
                   .arg(m_mode.toShort(), reply.error.text(), m_previous.toShort()));
        return;
    }
    if (m_cancelRequested) {
        restore(tr("cancelled"));
        return;
    }
    connectSecond();
}

// A second connection proves the device is still reachable in the new mode.
void ModeApplier::connectSecond()
{
    setPhase(Phase::Verifying,
             tr("Applied %1; checking it over a new connection…").arg(m_mode.toShort()));
    Expected<Transport *> transport = m_connect();
    if (!transport) {
        waitForRevert(transport.error());
        return;
    }
    m_second = std::make_unique<DeviceClient>(*transport);
    connect(m_second.get(), &DeviceClient::ready, this, &ModeApplier::onSecondReady);
    connect(m_second.get(), &DeviceClient::disconnected, this, [this](const QString &reason) {
        if (m_phase == Phase::Verifying || m_phase == Phase::CountingDown ||
            m_phase == Phase::Confirming)
            waitForRevert(tr("the new connection dropped: %1").arg(reason));
    });
    m_second->connectToDevice();
}

void ModeApplier::onSecondReady(const DeviceInfo &info)
{
    if (m_phase != Phase::Verifying)
        return;
    if (!(info.mode == m_mode)) {
        waitForRevert(tr("the device reports %1").arg(info.mode.toShort()));
        return;
    }
    if (m_cancelRequested) {
        restore(tr("cancelled"));
        return;
    }
    startCountdown();
}

void ModeApplier::startCountdown()
{
    m_secondsLeft = m_options.keepAfterSeconds;
    if (m_secondsLeft <= 0) {
        confirm();
        return;
    }
    setPhase(Phase::CountingDown,
             tr("Keeping %1 in %2 s unless you cancel").arg(m_mode.toShort()).arg(m_secondsLeft));
    Q_EMIT countdown(m_secondsLeft);
    m_ticker.start();
}

void ModeApplier::tick()
{
    if (m_phase != Phase::CountingDown) {
        m_ticker.stop();
        return;
    }
    --m_secondsLeft;
    Q_EMIT countdown(m_secondsLeft);
    if (m_secondsLeft <= 0) {
        m_ticker.stop();
        confirm();
        return;
    }
    setPhase(Phase::CountingDown,
             tr("Keeping %1 in %2 s unless you cancel").arg(m_mode.toShort()).arg(m_secondsLeft));
}

void ModeApplier::confirmNow()
{
    if (m_phase != Phase::CountingDown)
        return;
    m_ticker.stop();
    confirm();
}

void ModeApplier::confirm()
{
    setPhase(Phase::Confirming, tr("Confirming %1…").arg(m_mode.toShort()));
    QJsonObject fields;
    if (!m_token.isEmpty())
        fields.insert(QStringLiteral("token"), m_token);
    // After a reboot one connection does it all.
    DeviceClient *via = m_second ? m_second.get() : m_first.get();
    DeviceCall *call = via->call(QStringLiteral("confirm"), fields);
    connect(call, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
        if (m_phase != Phase::Confirming)
            return;
        if (reply.ok)
            finish(true, tr("%1 now runs %2, confirmed").arg(m_target, m_mode.toShort()));
        else
            waitForRevert(tr("the confirmation failed: %1").arg(reply.error.text()));
    });
}

void ModeApplier::cancel()
{
    switch (m_phase) {
    case Phase::Connecting:
    case Phase::Applying:
    case Phase::Rebooting:
    case Phase::Verifying:
        m_cancelRequested = true;  // acted on at the next step
        break;
    case Phase::CountingDown:
        m_ticker.stop();
        restore(tr("cancelled"));
        break;
    default:
        break;
    }
}

// Puts the previous mode back through the first connection, then disarms the revert (the
// mode it would restore is already there). If that fails, the armed revert still fires.
void ModeApplier::restore(const QString &why)
{
    if (m_byReboot) {
        leaveToRevert(why);  // putting it back is a raise: only the device's reboot can
        return;
    }
    setPhase(Phase::Restoring, tr("Putting %1 back (%2)…").arg(m_previous.toShort(), why));
    connect(
        m_first->applyMode(m_previous), &DeviceCall::finished, this,
        [this, why](const DeviceReply &reply) {
            if (m_phase != Phase::Restoring)
                return;
            if (!reply.ok) {
                waitForRevert(
                    tr("putting %1 back failed: %2").arg(m_previous.toShort(), reply.error.text()));
                return;
            }
            QJsonObject fields;
            if (!m_token.isEmpty())
                fields.insert(QStringLiteral("token"), m_token);
            connect(m_first->call(QStringLiteral("confirm"), fields), &DeviceCall::finished, this,
                    [this, why](const DeviceReply &) {
                        finish(false,
                               tr("%1: back in %2 (%3)").arg(m_target, m_previous.toShort(), why));
                    });
        });
}

// Nothing more to do but let the device revert by itself, and look until it has.
void ModeApplier::waitForRevert(const QString &why)
{
    if (m_phase == Phase::WaitingForRevert || m_phase == Phase::Done)
        return;
    if (m_byReboot) {
        leaveToRevert(why);
        return;
    }
    m_ticker.stop();
    m_second.reset();
    const qint64 leftMs = qMax<qint64>(0, deadlineWallMs() - m_sinceArmed.elapsed());
    setPhase(Phase::WaitingForRevert,
             tr("Could not confirm %1 (%2); the device goes back to %3 by itself in %4 s")
                 .arg(m_mode.toShort(), why, m_previous.toShort())
                 .arg((leftMs + 999) / 1000));
    QTimer::singleShot(int(leftMs), this, &ModeApplier::pollRevert);
}

void ModeApplier::pollRevert()
{
    if (m_phase != Phase::WaitingForRevert)
        return;
    const bool late = m_sinceArmed.elapsed() > deadlineWallMs() + kRevertGraceMs;
    if (!m_first || !m_first->isReady()) {
        if (late)
            finish(false,
                   tr("%1 was not confirmed; the device cannot be reached to check "
                      "that it went back to %2")
                       .arg(m_mode.toShort(), m_previous.toShort()));
        else
            QTimer::singleShot(kRevertPollMs, this, &ModeApplier::pollRevert);
        return;
    }
    connect(m_first->getMode(), &DeviceCall::finished, this, [this, late](const DeviceReply &r) {
        if (m_phase != Phase::WaitingForRevert)
            return;
        const Expected<PowerMode> now = r.ok
            ? modeFromJson(r.result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"))
            : Expected<PowerMode>::failure(r.error.text());
        if (now && *now == m_previous) {
            finish(false,
                   tr("%1 was not confirmed; the device went back to %2 by itself")
                       .arg(m_mode.toShort(), m_previous.toShort()));
        } else if (late) {
            finish(false,
                   tr("%1 was not confirmed, and the device still reports %2")
                       .arg(m_mode.toShort(), now ? now->toShort() : QStringLiteral("nothing")));
        } else {
            QTimer::singleShot(kRevertPollMs, this, &ModeApplier::pollRevert);
        }
    });
}

void ModeApplier::finish(bool kept, const QString &message)
{
    if (m_phase == Phase::Done)
        return;
    m_ticker.stop();
    setPhase(Phase::Done, message);
    // The connections end; the first agent's revert is disarmed or has fired by now.
    if (m_second)
        m_second->disconnectFromDevice();
    if (m_first)
        m_first->disconnectFromDevice();
    Q_EMIT finished(kept, message);
}

}  // namespace ptwb
