#pragma once

#include "devicelist.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;

namespace ptwb {
class DeviceClient;
struct DeviceInfo;
struct PowerMode;
}  // namespace ptwb

namespace ptwb::ui {

class DeviceMonitor;
class Sparkline;

// The connected device at a glance: connection state (with the reason when it is gone and a
// Reconnect button), model, L4T release, boot id, agent, its privileged helper, the current mode
// in both notations, and a live power sparkline. Shows what the DeviceClient reports; polls only
// while visible.
class DeviceDetailsView : public QWidget
{
    Q_OBJECT

public:
    enum class State { NoClient, Connecting, Connected, Disconnected };

    explicit DeviceDetailsView(QWidget *parent = nullptr);

    // The entry the client was made for (its name and target head the view).
    void setEntry(const DeviceEntry &entry);
    // Follows `client` (not owned); null shows "not connected".
    void setClient(DeviceClient *client);
    DeviceClient *client() const;

    State state() const { return m_state; }
    // What the state line says, e.g. "Disconnected: connection lost: ...".
    QString stateText() const;
    Sparkline *sparkline() const { return m_sparkline; }
    DeviceMonitor *monitor() const { return m_monitor; }

Q_SIGNALS:
    void stateChanged(ptwb::ui::DeviceDetailsView::State state);
    // "Set up helper…": the device's privileged helper is missing, outdated or unsafe.
    void setupRequested();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void setState(State state, const QString &text);
    void showInfo(const DeviceInfo &info);
    // The mode space the device is driven with (its kind), or why it cannot be.
    void showSpec(const DeviceInfo &info);

public:
    // What the store said of the device's spec on this connection (its tables changed since it
    // was last seen); empty hides it.
    void setSpecNote(const QString &note);

private:
    void showMode(const PowerMode &mode);
    void clearInfo();
    void updateSetupOffer();

    QPointer<DeviceClient> m_client;
    DeviceMonitor *m_monitor;
    State m_state = State::NoClient;
    QLabel *m_title;
    QLabel *m_target;
    QLabel *m_simulatedBadge;
    QLabel *m_stateDot;
    QLabel *m_stateText;
    QPushButton *m_reconnect;
    QPushButton *m_setupHelper;
    QLabel *m_model;
    QLabel *m_l4t;
    QLabel *m_spec;
    QLabel *m_specNote;
    QLabel *m_bootId;
    QLabel *m_agent;
    QLabel *m_helper;
    QLabel *m_modeCanonical;
    QLabel *m_modeShort;
    QLabel *m_thermal;
    Sparkline *m_sparkline;
    QWidget *m_body;
};

}  // namespace ptwb::ui
