#pragma once

#include "devicelist.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace ptwb::ui {

// Asks for a real Jetson reached over SSH: name, host, port, user, an optional private key file
// and whether the agent runs through `sudo -n`. OK checks the fields (checkDeviceFields) and
// stays open with a message naming the wrong field until they are right. The host key is not
// asked here: the first connection shows its fingerprint (DialogSshPrompts).
class AddDeviceDialog : public QDialog
{
    Q_OBJECT

public:
    // `existing`: the listed devices, so the same target is not added twice.
    explicit AddDeviceDialog(const QVector<DeviceEntry> &existing, QWidget *parent = nullptr);

    void setFields(const DeviceFields &fields);
    DeviceFields fields() const;
    // The checked entry; meaningful once the dialog was accepted.
    DeviceEntry entry() const { return m_entry; }
    // The message shown for the last refused OK; empty when none.
    QString errorText() const;

public Q_SLOTS:
    void accept() override;

private:
    void browseKeyFile();
    QLineEdit *field(const QString &name) const;

    QVector<DeviceEntry> m_existing;
    DeviceEntry m_entry;
    QLineEdit *m_name;
    QLineEdit *m_host;
    QLineEdit *m_port;
    QLineEdit *m_user;
    QLineEdit *m_keyFile;
    QLabel *m_error;
    QDialogButtonBox *m_buttons;
};

}  // namespace ptwb::ui
