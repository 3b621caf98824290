#include "devicesetupdialog.h"

#include "backgroundtasks.h"
#include "devicesetup.h"
#include "plaintext.h"
#include "prompts.h"
#include "sshanswerdialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <memory>

namespace ptwb::ui {

namespace {

// What the result area shows for a finished setup: the installer's steps, or why it failed.
QString reportOf(const Expected<HelperSetup::Report> &result, bool *ok)
{
    *ok = result && result->ok();
    if (!result)
        return QObject::tr("The setup did not run: %1").arg(result.error());
    QStringList lines = result->lines;
    if (!result->sudoError.isEmpty())
        lines << QObject::tr("sudo refused: %1").arg(result->sudoError);
    lines << (result->ok() ? QObject::tr("Done: the helper is installed. Connect (or reconnect) "
                                         "to use it.")
                           : QObject::tr("The setup failed (exit status %1); nothing was put in "
                                         "place that was not complete.")
                                 .arg(result->exitStatus));
    return lines.join(QLatin1Char('\n'));
}

}  // namespace

DeviceSetupDialog::DeviceSetupDialog(const QString &target, const QString &name,
                                     workflows::ConnectionOptions options, QWidget *parent)
    : QDialog(parent)
    , m_target(target)
    , m_options(std::move(options))
    , m_tasks(new BackgroundTasks(this))
    , m_password(new QLineEdit(this))
    , m_busy(new QProgressBar(this))
    , m_status(plainLabel(this))
    , m_report(new QPlainTextEdit(this))
    , m_setUp(new QPushButton(tr("&Set up"), this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Close, this))
{
    setObjectName(QStringLiteral("deviceSetupDialog"));
    setWindowTitle(tr("Set up %1").arg(name.isEmpty() ? target : name));

    auto *intro = new QLabel(
        tr("<p>This installs, as root on <b>%1</b>:</p><ul>"
           "<li><tt>/usr/lib/powertrain-workbench/ptwb-helper</tt>: the only part of the "
           "workbench that runs as root. It sets and reads back clocks and cores, arms and "
           "performs the revert of an unconfirmed mode, and reboots; it takes numbers only.</li>"
           "<li><tt>/var/lib/powertrain-workbench</tt>: its state, root-owned.</li>"
           "<li><tt>/etc/sudoers.d/powertrain-workbench</tt>: lets your login run exactly that "
           "helper without a password (checked with <tt>visudo -c</tt>).</li></ul>"
           "<p>Everything else, your workloads included, runs as your login. Your sudo password "
           "goes once to sudo's standard input over the SSH connection; it is not stored or "
           "logged.</p>")
            .arg(target.toHtmlEscaped()),
        this);
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::RichText);

    m_password->setObjectName(QStringLiteral("sudoPassword"));
    prepareSecretField(m_password);
    m_password->setPlaceholderText(tr("your password on the device"));
    m_password->setToolTip(tr("The password sudo asks of your login on the device"));
    auto *form = new QFormLayout;
    form->addRow(tr("sudo &password:"), m_password);

    m_busy->setRange(0, 0);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_status->setObjectName(QStringLiteral("setupStatus"));
    m_status->setWordWrap(true);
    m_report->setObjectName(QStringLiteral("setupReport"));
    m_report->setReadOnly(true);
    m_report->setPlaceholderText(tr("What the device did appears here."));
    m_report->setMinimumHeight(120);

    m_setUp->setObjectName(QStringLiteral("setUpButton"));
    m_setUp->setToolTip(tr("Connect, install the helper and the sudoers rule, and show what was "
                           "done"));
    m_setUp->setDefault(true);
    m_buttons->addButton(m_setUp, QDialogButtonBox::ActionRole);
    connect(m_setUp, &QPushButton::clicked, this, &DeviceSetupDialog::startSetup);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_busy);
    layout->addWidget(m_status);
    layout->addWidget(m_report, 1);
    layout->addWidget(m_buttons);
    resize(560, 460);
}

bool DeviceSetupDialog::isRunning() const
{
    return m_tasks->isRunning(QStringLiteral("setup"));
}

QString DeviceSetupDialog::reportText() const
{
    return m_report->toPlainText();
}

void DeviceSetupDialog::startSetup()
{
    if (isRunning())
        return;
    if (m_password->text().isEmpty()) {
        m_status->setText(tr("Enter the password sudo asks on the device."));
        m_password->setFocus();
        return;
    }
    // The field's copy is overwritten and emptied at once; the UTF-8 bytes are held by the one
    // holder the task takes them from, and wiped there (setupHelper) or when it goes unrun.
    QString typed = takeSecret(m_password);
    auto password = std::make_shared<SecretBytes>(typed.toUtf8());
    wipeSecret(typed);
    m_report->clear();
    showRunning(true);
    m_tasks->run(
        QStringLiteral("setup"),
        [target = m_target, options = m_options, password](const TaskContext &) {
            return workflows::setupHelper(target, options, password->take());
        },
        [this](const Expected<HelperSetup::Report> &result) {
            bool ok = false;
            m_report->setPlainText(reportOf(result, &ok));
            showRunning(false);
            m_status->setText(ok ? tr("The helper is installed.")
                                 : tr("The setup failed: see below."));
            Q_EMIT finished(ok);
        });
}

void DeviceSetupDialog::showRunning(bool running)
{
    m_busy->setVisible(running);
    m_setUp->setEnabled(!running);
    m_password->setEnabled(!running);
    if (running)
        m_status->setText(tr("Connecting to %1 and installing… (a question about the host key or "
                             "your SSH key may come first)")
                              .arg(m_target));
}

}  // namespace ptwb::ui
