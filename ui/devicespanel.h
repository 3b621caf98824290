#pragma once

#include "devicelist.h"

#include <QPointer>
#include <QWidget>

class QAction;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace ptwb {
class DeviceClient;
}

namespace ptwb::ui {

class DeviceDetailsView;

// The Devices panel: the list of devices (the simulated Jetsons first, AGX Orin preselected on
// first run, then the real ones a person added), Add / Remove / Set up / Connect, and the details
// of the connected device (DeviceDetailsView). It does not make connections: Connect emits
// deviceChosen(entry); the owner builds the transport (deviceTransport(entry, window)) and the
// DeviceClient, and hands the client back with setClient().
class DevicesPanel : public QWidget
{
    Q_OBJECT

public:
    explicit DevicesPanel(QWidget *parent = nullptr);

    // The device the window talks to (not owned; null for none). It is taken to be the entry
    // last chosen, or the selected one if none was.
    void setClient(DeviceClient *client);
    DeviceClient *client() const;

    DeviceEntry currentEntry() const;
    // Selects the entry with this target; false when none has it.
    bool setCurrentTarget(const QString &target);
    QVector<DeviceEntry> entries() const { return m_entries; }
    DeviceDetailsView *details() const { return m_details; }

    QAction *addDeviceAction() const { return m_addAction; }
    QAction *removeDeviceAction() const { return m_removeAction; }
    QAction *connectDeviceAction() const { return m_connectAction; }
    QAction *setupDeviceAction() const { return m_setupAction; }

public Q_SLOTS:
    // Opens the Add device dialog (window-modal, returns at once); an accepted entry is added,
    // stored and selected.
    void addDevice();
    // Removes the selected real device; "Undo" in the panel brings it back.
    void removeCurrent();
    void undoRemove();
    // Opens the Set up dialog (DeviceSetupDialog, window-modal, returns at once) for the selected
    // real device: installs its privileged helper.
    void setupCurrent();
    // Emits deviceChosen() for the selected entry and remembers it as the current target.
    void connectCurrent();

Q_SIGNALS:
    void deviceChosen(const ptwb::ui::DeviceEntry &entry);

private:
    void rebuildList(const QString &selectTarget);
    void updateActions();
    void updateStateIcons();
    void addEntry(const DeviceEntry &entry, int index = -1);
    int indexOfTarget(const QString &target) const;

    QVector<DeviceEntry> m_entries;
    QPointer<DeviceClient> m_client;
    QString m_activeTarget;  // the entry the client was made for
    DeviceEntry m_removed;  // for Undo
    int m_removedIndex = -1;

    QListWidget *m_list;
    DeviceDetailsView *m_details;
    QPushButton *m_connectButton;
    QLabel *m_undoText;
    QPushButton *m_undoButton;
    QAction *m_addAction;
    QAction *m_removeAction;
    QAction *m_connectAction;
    QAction *m_setupAction;
};

}  // namespace ptwb::ui
