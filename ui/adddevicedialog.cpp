#include "adddevicedialog.h"

#include "plaintext.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace ptwb::ui {

AddDeviceDialog::AddDeviceDialog(const QVector<DeviceEntry> &existing, QWidget *parent)
    : QDialog(parent)
    , m_existing(existing)
    , m_name(new QLineEdit(this))
    , m_host(new QLineEdit(this))
    , m_port(new QLineEdit(QStringLiteral("22"), this))
    , m_user(new QLineEdit(this))
    , m_keyFile(new QLineEdit(this))
    , m_error(plainLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Add device"));
    setObjectName(QStringLiteral("addDeviceDialog"));

    m_name->setObjectName(QStringLiteral("name"));
    m_name->setPlaceholderText(tr("optional, e.g. lab orin (default: user@host)"));
    m_name->setToolTip(tr("What the Devices list calls it"));
    m_host->setObjectName(QStringLiteral("host"));
    m_host->setPlaceholderText(tr("name or address, e.g. orin.local"));
    m_host->setToolTip(tr("The device's host name or IP address (a Host alias of ~/.ssh/config "
                          "works too)"));
    m_port->setObjectName(QStringLiteral("port"));
    m_port->setMaximumWidth(m_port->fontMetrics().horizontalAdvance(QStringLiteral("0000000")) +
                            16);
    m_port->setToolTip(tr("The SSH port, 1 to 65535 (22 unless the device says otherwise)"));
    m_user->setObjectName(QStringLiteral("user"));
    m_user->setPlaceholderText(tr("e.g. nvidia"));
    m_user->setToolTip(tr("The login name on the device"));
    m_keyFile->setObjectName(QStringLiteral("keyFile"));
    m_keyFile->setPlaceholderText(tr("optional (default: SSH agent, ~/.ssh/id_*)"));
    m_keyFile->setToolTip(tr("A private key file to log in with; it is tried before the SSH "
                             "agent's and the default keys. A passphrase is asked when needed."));

    auto *browse = new QPushButton(tr("&Browse…"), this);
    browse->setToolTip(tr("Choose the private key file"));
    connect(browse, &QPushButton::clicked, this, &AddDeviceDialog::browseKeyFile);
    auto *keyRow = new QHBoxLayout;
    keyRow->addWidget(m_keyFile, 1);
    keyRow->addWidget(browse);

    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Host:"), m_host);
    form->addRow(tr("&Port:"), m_port);
    form->addRow(tr("&User:"), m_user);
    // A layout row gets no buddy by itself: the label needs one for its Alt+K.
    auto *keyLabel = new QLabel(tr("&Key file:"), this);
    keyLabel->setBuddy(m_keyFile);
    form->addRow(keyLabel, keyRow);

    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #d03b3b; }"));
    m_error->hide();

    auto *note = new QLabel(tr("On the first connection the device's host key fingerprint is "
                               "shown for you to compare before anything is sent."),
                            this);
    note->setWordWrap(true);
    note->setForegroundRole(QPalette::PlaceholderText);

    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Add"));
    m_buttons->button(QDialogButtonBox::Ok)->setToolTip(tr("Check the fields and add the device"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &AddDeviceDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &AddDeviceDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(m_error);
    layout->addWidget(m_buttons);
    setMinimumWidth(460);
    m_host->setFocus();
}

void AddDeviceDialog::setFields(const DeviceFields &fields)
{
    m_name->setText(fields.name);
    m_host->setText(fields.host);
    m_port->setText(fields.port);
    m_user->setText(fields.user);
    m_keyFile->setText(fields.keyFile);
}

DeviceFields AddDeviceDialog::fields() const
{
    return {m_name->text(), m_host->text(), m_port->text(), m_user->text(), m_keyFile->text()};
}

QString AddDeviceDialog::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

QLineEdit *AddDeviceDialog::field(const QString &name) const
{
    return findChild<QLineEdit *>(name);
}

void AddDeviceDialog::accept()
{
    const DeviceFieldsCheck check = checkDeviceFields(fields(), m_existing);
    if (!check.ok) {
        m_error->setText(check.message);
        m_error->show();
        if (QLineEdit *wrong = field(check.field)) {
            wrong->setFocus();
            wrong->selectAll();
        }
        return;
    }
    m_error->hide();
    m_entry = check.entry;
    QDialog::accept();
}

void AddDeviceDialog::browseKeyFile()
{
    const QString start = m_keyFile->text().isEmpty() ? QDir::homePath() + QStringLiteral("/.ssh")
                                                      : m_keyFile->text();
    // Private keys have no suffix, so no name filter; hidden files must show (.ssh).
    QFileDialog dialog(this, tr("Private key file"), start);
    dialog.setFileMode(QFileDialog::ExistingFile);
    dialog.setFilter(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    if (dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty())
        m_keyFile->setText(dialog.selectedFiles().constFirst());
}

}  // namespace ptwb::ui
