// ModeApplier's apply by reboot (see modeapplier.h): stage the mode on the device, reboot it,
// reconnect until it answers from a new boot, check that it came up in the mode with the revert
// armed at boot, then the usual countdown and confirm over that one connection. Nothing here can
// put the previous mode back by itself (that is a raise): unconfirmed, the device's helper
// reboots back to it at the deadline.
#include "modeapplier.h"

#include "wire.h"

#include <QTimer>

namespace ptwb {

namespace {

constexpr int kRebootPollMs = 2000;  // between attempts to reach the rebooting device
constexpr int kMaxStagedSeconds = 3600;  // the device's bound on revert_after_s

// A client whose signal is being handled cannot be deleted there.
void retire(std::unique_ptr<DeviceClient> &client)
{
    if (!client)
        return;
    client->disconnect();
    client->disconnectFromDevice();
    client.release()->deleteLater();
}

}  // namespace

void ModeApplier::stageAndReboot(const DeviceInfo &info)
{
    m_byReboot = true;
    m_oldBootId = info.bootId;
    // The revert is armed at boot: it must outlast reconnecting, the countdown and the confirm.
    const int revertAfter = qMin(kMaxStagedSeconds,
                                 m_options.rebootWaitSeconds + m_options.keepAfterSeconds +
                                     m_options.revertMarginSeconds);
    setPhase(Phase::Rebooting, tr("Staging %1 for the next boot…").arg(m_mode.toShort()));
    DeviceCall *stage = m_first->call(QStringLiteral("stage_mode"),
                                      {{QStringLiteral("mode"), modeToJson(m_mode)},
                                       {QStringLiteral("revert_after_s"), revertAfter}});
    connect(stage, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
        if (m_phase != Phase::Rebooting)
            return;
        if (!reply.ok) {
            finish(false,
                   tr("The device would not stage %1 for a reboot (%2); nothing was changed")
                       .arg(m_mode.toShort(), reply.error.text()));
            return;
        }
        m_token = reply.result.value(QLatin1String("token")).toString();
        if (m_cancelRequested) {
            m_first->call(QStringLiteral("unstage"), {{QStringLiteral("token"), m_token}});
            finish(false, tr("Cancelled before the reboot; nothing was changed"));
            return;
        }
        rebootStaged();
    });
}

void ModeApplier::rebootStaged()
{
    setPhase(Phase::Rebooting,
             tr("Rebooting %1 into %2; unless you confirm after the reboot it goes back to %3…")
                 .arg(m_target, m_mode.toShort(), m_previous.toShort()));
    m_sinceReboot.start();
    DeviceCall *reboot =
        m_first->call(QStringLiteral("reboot"), {{QStringLiteral("boot_id"), m_oldBootId}});
    connect(reboot, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
        if (m_phase != Phase::Rebooting)
            return;
        if (!reply.ok && reply.error.code != QLatin1String("disconnected")) {
            m_first->call(QStringLiteral("unstage"), {{QStringLiteral("token"), m_token}});
            finish(false,
                   tr("The device would not reboot (%1); nothing was changed")
                       .arg(reply.error.text()));
            return;
        }
        retire(m_first);  // that boot is over
        retrySoon();
    });
}

void ModeApplier::retrySoon()
{
    QTimer::singleShot(kRebootPollMs, this, &ModeApplier::awaitReboot);
}

void ModeApplier::awaitReboot()
{
    if (m_phase != Phase::Rebooting)
        return;
    if (m_sinceReboot.elapsed() > wallMs(m_options.rebootWaitSeconds)) {
        finish(false,
               tr("%1 did not answer within %2 s of the reboot. It was to come up in %3 "
                  "and, unconfirmed, goes back to %4 by itself")
                   .arg(m_target)
                   .arg(m_options.rebootWaitSeconds)
                   .arg(m_mode.toShort(), m_previous.toShort()));
        return;
    }
    Expected<Transport *> transport = m_connect();
    if (!transport) {
        retrySoon();
        return;
    }
    m_second = std::make_unique<DeviceClient>(*transport);
    connect(m_second.get(), &DeviceClient::ready, this, &ModeApplier::onBackFromReboot);
    connect(m_second.get(), &DeviceClient::disconnected, this, [this] {
        if (m_phase != Phase::Rebooting)
            return;
        retire(m_second);  // not up yet
        retrySoon();
    });
    m_second->connectToDevice();
}

void ModeApplier::onBackFromReboot(const DeviceInfo &info)
{
    if (m_phase != Phase::Rebooting)
        return;
    if (info.bootId == m_oldBootId) {  // still the old boot, on its way down
        retire(m_second);
        retrySoon();
        return;
    }
    if (!info.revert || info.revert->token != m_token || !(info.mode == m_mode)) {
        finish(false,
               tr("%1 came back in %2, not %3: the mode could not be applied at boot, "
                  "and the device kept or put back what it could")
                   .arg(m_target, info.mode.toShort(), m_mode.toShort()));
        return;
    }
    // This connection verifies, counts down and confirms; the deadline is the device's.
    m_first = std::move(m_second);
    m_first->disconnect(this);
    connect(m_first.get(), &DeviceClient::disconnected, this, [this](const QString &reason) {
        if (m_phase == Phase::CountingDown || m_phase == Phase::Confirming)
            leaveToRevert(tr("the connection dropped: %1").arg(reason));
    });
    m_deadlineMs = wallMs(info.revert->secondsLeft);
    m_sinceArmed.start();
    if (m_cancelRequested) {
        leaveToRevert(tr("cancelled"));
        return;
    }
    startCountdown();
}

// Applied by reboot and not to be confirmed: the device reboots back by itself at the deadline.
void ModeApplier::leaveToRevert(const QString &why)
{
    const qint64 leftMs = qMax<qint64>(0, deadlineWallMs() - m_sinceArmed.elapsed());
    finish(false,
           tr("%1 was not confirmed (%2): the device reboots back to %3 by itself in "
              "about %4 s")
               .arg(m_mode.toShort(), why, m_previous.toShort())
               .arg((leftMs + 999) / 1000));
}

}  // namespace ptwb
