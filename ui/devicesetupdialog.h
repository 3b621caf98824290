#pragma once

#include "deviceendpoint.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace ptwb::ui {

class BackgroundTasks;

// The Devices view's Set up: installs the workbench's privileged helper on a real device
// (workflows::setupHelper, the same step as `ptwb device setup`). Says what will be installed,
// asks for the sudo password (hidden; sent on sudo's stdin over SSH, never stored or logged, and
// cleared from the field as soon as it is sent), runs the setup off the GUI thread with a busy
// bar, and shows what the device did, line by line, as plain text. Closing while it runs drops
// the result (the step on the device finishes by itself).
class DeviceSetupDialog : public QDialog
{
    Q_OBJECT

public:
    DeviceSetupDialog(const QString &target, const QString &name,
                      workflows::ConnectionOptions options, QWidget *parent = nullptr);

    bool isRunning() const;
    // What the result area shows (tests).
    QString reportText() const;

public Q_SLOTS:
    void startSetup();

Q_SIGNALS:
    // The setup ended: ok, or not (with the reason in the report).
    void finished(bool ok);

private:
    void showRunning(bool running);

    QString m_target;
    workflows::ConnectionOptions m_options;
    BackgroundTasks *m_tasks;
    QLineEdit *m_password;
    QProgressBar *m_busy;
    QLabel *m_status;
    QPlainTextEdit *m_report;
    QPushButton *m_setUp;
    QDialogButtonBox *m_buttons;
};

}  // namespace ptwb::ui
