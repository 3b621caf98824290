#include "importdialog.h"

#include "modes/devicespec.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>

namespace ptwb::ui {

namespace {

// "resnet18_imagenet_train.csv" -> "resnet18_imagenet_train": a sensible default name. For raw
// run folders, the folder that holds them: ".../orin-nano/resnet18/pm_2_..." -> "resnet18".
QString workloadFromFile(const QString &path)
{
    const QFileInfo info(path);
    QString name = info.completeBaseName();
    if (info.isDir()) {
        name = RawRunFolder::looksLikeRunFolder(info.fileName())
            ? QFileInfo(info.absolutePath()).fileName()
            : info.fileName();
    }
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("_"));
    return name;
}

}  // namespace

ImportDialog::ImportDialog(const QString &filePath, const QString &deviceKind, QWidget *parent)
    : QDialog(parent)
    , m_file(new QLineEdit(filePath, this))
    , m_device(new QComboBox(this))
    , m_workload(new QLineEdit(workloadFromFile(filePath), this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Import measurements"));
    m_file->setReadOnly(true);
    const bool folders = QFileInfo(filePath).isDir();
    for (const QString &id : DeviceSpec::builtinIds()) {
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(id);
        m_device->addItem(spec ? QStringLiteral("%1 (%2)").arg(spec->name(), id) : id, id);
    }
    m_device->setCurrentIndex(std::max(0, m_device->findData(deviceKind)));
    m_device->setToolTip(folders ? tr("The device the runs were measured on; every folder's "
                                      "clocks are checked against its table and the run's log")
                                 : tr("The device the file was measured on; every frequency is "
                                      "checked against its table"));
    m_workload->setToolTip(tr("A name for the training workload, e.g. resnet18"));
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Import"));
    QPushButton *check = m_buttons->addButton(tr("C&heck only"), QDialogButtonBox::ActionRole);
    check->setObjectName(QStringLiteral("checkOnlyButton"));
    check->setToolTip(tr("Read and check everything and list what would be imported; store "
                         "nothing"));
    connect(check, &QPushButton::clicked, this, [this] {
        m_dryRun = true;
        accept();
    });

    auto *form = new QFormLayout(this);
    form->addRow(folders ? tr("Folder:") : tr("File:"), m_file);
    form->addRow(tr("&Device:"), m_device);
    form->addRow(tr("&Workload:"), m_workload);
    const QString hintText = folders
        ? tr("Raw run folders pm_<cores>_<cpu kHz>_<gpu Hz>_<mem Hz>/ as the PowerTrain study's "
             "scripts write them: each is reduced to one measurement (first minibatch dropped, "
             "minibatches after power settled, medians of time and power). Good folders are "
             "imported together; any other is reported with its reason. Folders imported before "
             "are left as they are.")
        : tr("Columns: cores, cpu (kHz), gpu (Hz), mem (Hz), observed_time (ms), "
             "observed_power (W). The whole file is checked before anything is stored; "
             "importing the same file twice changes nothing.");
    auto *hint = new QLabel(hintText, this);
    hint->setTextFormat(Qt::PlainText);
    hint->setWordWrap(true);
    form->addRow(hint);
    form->addRow(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_workload, &QLineEdit::textChanged, this, &ImportDialog::updateAcceptable);
    updateAcceptable();
    resize(560, sizeHint().height());
}

ImportRequest ImportDialog::request() const
{
    return {m_file->text(), m_device->currentData().toString(), QString(),
            m_workload->text().trimmed(), m_dryRun};
}

void ImportDialog::updateAcceptable()
{
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!m_workload->text().trimmed().isEmpty());
}

}  // namespace ptwb::ui
