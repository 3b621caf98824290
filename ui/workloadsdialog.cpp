#include "workloadsdialog.h"

#include "backgroundtasks.h"
#include "plaintext.h"
#include "store/store.h"
#include "workloadeditor.h"
#include "workloadtestpane.h"

#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>

namespace ptwb::ui {

namespace {

const QColor kErrorColor(0xc6, 0x28, 0x28);
constexpr int kBuiltinRole = Qt::UserRole + 1;
const QString kGeometryKey = QStringLiteral("workloads/geometry");
const QString kSecondsKey = QStringLiteral("workloads/testSeconds");

// A button that never takes Enter from the fields (Enter edits the list's current item).
QPushButton *button(const QString &text, const QString &name, const QString &tip, QWidget *parent)
{
    auto *b = new QPushButton(text, parent);
    b->setObjectName(name);
    b->setToolTip(tip);
    b->setAutoDefault(false);
    return b;
}

QString recogniserText(const WorkloadDefinition &d)
{
    switch (d.recogniser) {
    case WorkloadDefinition::Recogniser::Regex:
        return QObject::tr("regular expression %1").arg(d.pattern);
    case WorkloadDefinition::Recogniser::Launcher:
        return QObject::tr("the launcher (optimizer.step())");
    default:
        return QObject::tr("the PTWB_MINIBATCH marker line");
    }
}

}  // namespace

// What a store task gives back: its outcome and the list after it.
struct WorkloadsDialog::StoreOutcome
{
    Status status;
    Expected<QVector<workflows::WorkloadEntry>> entries =
        Expected<QVector<workflows::WorkloadEntry>>::failure(QString());
};

WorkloadsDialog::WorkloadsDialog(const QString &databasePath,
                                 const workflows::DeviceEndpoint &device, QWidget *parent)
    : QDialog(parent)
    , m_databasePath(databasePath)
    , m_device(device)
    , m_tasks(new BackgroundTasks(this))
{
    setObjectName(QStringLiteral("workloadsDialog"));
    setWindowTitle(tr("Workloads"));

    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("workloadList"));
    m_list->setToolTip(tr("The agent's built-in workloads (grey, read-only) and the workloads you "
                          "saved. F2 or Enter edits, Del removes"));
    m_list->setMinimumWidth(180);
    m_add = button(tr("&Add"), QStringLiteral("addButton"),
                   tr("A new workload: your training script's command (Ctrl+N)"), this);
    m_duplicate =
        button(tr("D&uplicate"), QStringLiteral("duplicateButton"),
               tr("Save a copy of the selected workload under a new name (Ctrl+D)"), this);
    m_remove = button(tr("&Remove"), QStringLiteral("removeButton"),
                      tr("Remove the selected workload's definition (Del); its measurements stay "
                         "in the store"),
                      this);
    connect(m_add, &QPushButton::clicked, this, &WorkloadsDialog::addWorkload);
    connect(m_duplicate, &QPushButton::clicked, this, &WorkloadsDialog::duplicateCurrent);
    connect(m_remove, &QPushButton::clicked, this, &WorkloadsDialog::removeCurrent);
    connect(m_list, &QListWidget::currentItemChanged, this, &WorkloadsDialog::onCurrentChanged);
    connect(m_list, &QListWidget::itemActivated, this, [this] { editCurrent(); });
    auto *listButtons = new QHBoxLayout;
    listButtons->addWidget(m_add);
    listButtons->addWidget(m_duplicate);
    listButtons->addWidget(m_remove);
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_list, 1);
    leftLayout->addLayout(listButtons);

    m_editor = new WorkloadEditor(this);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(m_editor);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_save = button(tr("&Save"), QStringLiteral("saveButton"), QString(), this);
    m_revert = button(tr("Re&vert"), QStringLiteral("revertButton"),
                      tr("Forget the changes since the last save"), this);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("messageLabel"));
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    m_message->setToolTip(tr("What the last action did"));
    m_undo = button(tr("&Undo remove"), QStringLiteral("undoButton"),
                    tr("Put the removed workload's definition back (Ctrl+Z)"), this);
    m_undo->setVisible(false);
    connect(m_save, &QPushButton::clicked, this, &WorkloadsDialog::save);
    connect(m_revert, &QPushButton::clicked, this, &WorkloadsDialog::revert);
    connect(m_undo, &QPushButton::clicked, this, &WorkloadsDialog::undoRemove);
    connect(m_editor, &WorkloadEditor::changed, this, &WorkloadsDialog::updateControls);
    auto *saveRow = new QHBoxLayout;
    saveRow->addWidget(m_message, 1);
    saveRow->addWidget(m_undo);
    saveRow->addWidget(m_revert);
    saveRow->addWidget(m_save);
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(scroll, 1);
    rightLayout->addLayout(saveRow);

    m_test = new WorkloadTestPane(this);
    m_test->setDevice(m_device);
    auto *testBox = new QGroupBox(m_device.isValid() ? tr("Test on device: %1").arg(m_device.name)
                                                     : tr("Test on device (no device connected)"),
                                  this);
    testBox->setObjectName(QStringLiteral("testBox"));
    testBox->setToolTip(tr("Try the workload in the device's current mode before sweeping it"));
    auto *testLayout = new QVBoxLayout(testBox);
    testLayout->addWidget(m_test);
    connect(m_test, &WorkloadTestPane::runningChanged, this, &WorkloadsDialog::updateControls);

    // The list, the definition, its test: side by side, each as tall as the dialog.
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->addWidget(testBox);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({170, 580, 600});

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->button(QDialogButtonBox::Close)->setAutoDefault(false);
    buttons->button(QDialogButtonBox::Close)->setToolTip(tr("Close (Esc); a test running stops"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);

    // Keys: dialog-wide, except those a text field needs (Del, Enter): on the list only.
    auto shortcut = [this](const QKeySequence &keys, QWidget *on, Qt::ShortcutContext context,
                           auto slot) {
        auto *s = new QShortcut(keys, on, nullptr, nullptr, context);
        connect(s, &QShortcut::activated, this, slot);
    };
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_N), this, Qt::WindowShortcut,
             &WorkloadsDialog::addWorkload);
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_D), this, Qt::WindowShortcut,
             &WorkloadsDialog::duplicateCurrent);
    shortcut(QKeySequence(Qt::Key_F2), this, Qt::WindowShortcut, &WorkloadsDialog::editCurrent);
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_S), this, Qt::WindowShortcut, &WorkloadsDialog::save);
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_T), this, Qt::WindowShortcut, [this] {
        if (m_test->testButton()->isEnabled())
            m_test->startTest();
    });
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_Z), m_list, Qt::WidgetShortcut,
             &WorkloadsDialog::undoRemove);
    shortcut(QKeySequence(Qt::Key_Delete), m_list, Qt::WidgetShortcut,
             &WorkloadsDialog::removeCurrent);
    shortcut(QKeySequence(Qt::Key_Return), m_list, Qt::WidgetShortcut,
             &WorkloadsDialog::editCurrent);
    shortcut(QKeySequence(Qt::Key_Enter), m_list, Qt::WidgetShortcut,
             &WorkloadsDialog::editCurrent);

    QSettings settings;
    m_test->setSeconds(settings.value(kSecondsKey, 30).toInt());
    resize(1360, 680);
    restoreGeometry(settings.value(kGeometryKey).toByteArray());

    m_editor->setEnabled(false);
    updateControls();
    reload();
}

WorkloadsDialog::~WorkloadsDialog() = default;

void WorkloadsDialog::done(int result)
{
    if (isModified() && m_editor->problem().isEmpty() && isVisible()) {
        const auto answer = QMessageBox::question(
            this, tr("Unsaved changes"),
            tr("Save the changes to %1 before closing?")
                .arg(m_editor->definition().name.isEmpty() ? tr("the new workload")
                                                           : m_editor->definition().name),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
        if (answer == QMessageBox::Cancel)
            return;
        if (answer == QMessageBox::Save)
            save();
    }
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kSecondsKey, m_test->seconds());
    m_test->cancelTest();
    QDialog::done(result);
}

QStringList WorkloadsDialog::names() const
{
    QStringList out;
    for (const workflows::WorkloadEntry &entry : m_entries)
        out.append(entry.name);
    return out;
}

QString WorkloadsDialog::currentName() const
{
    const QListWidgetItem *item = m_list->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

bool WorkloadsDialog::selectWorkload(const QString &name)
{
    for (int row = 0; row < m_list->count(); ++row) {
        if (m_list->item(row)->data(Qt::UserRole).toString() == name) {
            m_list->setCurrentRow(row);
            return currentName() == name;
        }
    }
    return false;
}

bool WorkloadsDialog::isBusy() const
{
    return m_tasks->runningCount() > 0;
}

bool WorkloadsDialog::isModified() const
{
    if (m_editor->isBuiltin() || !m_editor->isEnabled())
        return false;
    if (m_draft)
        return true;
    return !m_editing.isEmpty() && !(m_editor->definition() == m_saved);
}

QString WorkloadsDialog::messageText() const
{
    return m_message->text();
}

void WorkloadsDialog::runStore(const QString &what, std::function<Status(Store &)> work,
                               QString select, bool offerUndo)
{
    m_list->setEnabled(false);
    m_tasks->run(
        QStringLiteral("store"),
        [path = m_databasePath, work = std::move(work)](const TaskContext &) {
            StoreOutcome outcome;
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store) {
                outcome.status = passOn<Status>(store);
                return outcome;
            }
            if (work)
                outcome.status = work(**store);
            outcome.entries = workflows::listWorkloads(**store);
            return outcome;
        },
        [this, what, select = std::move(select), offerUndo](const StoreOutcome &outcome) {
            m_list->setEnabled(true);
            if (!outcome.status) {
                // The editor keeps what was being saved; the list stays as it was.
                showMessage(outcome.status.error(), true);
                updateControls();
                return;
            }
            if (!outcome.entries) {
                showMessage(outcome.entries.error(), true);
                updateControls();
                return;
            }
            if (!what.isEmpty())
                showMessage(what, false, offerUndo);
            showEntries(*outcome.entries, select);
            if (!what.isEmpty())
                Q_EMIT workloadsChanged();
            Q_EMIT loaded();
        });
    updateControls();
}

void WorkloadsDialog::reload()
{
    runStore(QString(), {}, currentName());
}

void WorkloadsDialog::showEntries(const QVector<workflows::WorkloadEntry> &entries,
                                  const QString &select)
{
    m_entries = entries;
    m_selecting = true;
    m_list->clear();
    const QColor grey = palette().color(QPalette::PlaceholderText);
    int selectRow = -1;
    for (const workflows::WorkloadEntry &entry : entries) {
        auto *item = new QListWidgetItem(m_list);
        item->setData(Qt::UserRole, entry.name);
        item->setData(kBuiltinRole, entry.builtin);
        if (entry.builtin) {
            item->setText(tr("%1 (built-in)").arg(entry.name));
            item->setForeground(grey);
            item->setToolTip(
                plainTip(tr("%1: a built-in workload of the agent, read-only: it is the "
                            "agent's own training loop, not a command you can change")
                             .arg(entry.name)));
        } else if (entry.definition) {
            const WorkloadDefinition &d = *entry.definition;
            item->setText(entry.name);
            item->setToolTip(
                plainTip(tr("%1\nRuns: %2\nRecognises minibatches by %3\nFor: %4")
                             .arg(d.name, d.commandLine(), recogniserText(d),
                                  d.deviceKind.isEmpty() ? tr("any device") : d.deviceKind)));
        } else {
            item->setText(entry.name);
        }
        if (entry.name == select)
            selectRow = m_list->count() - 1;
    }
    // A new definition being written stays in the editor; else the one asked for, or the first.
    const bool keepDraft = selectRow < 0 && m_draft;
    if (selectRow >= 0)
        m_list->setCurrentRow(selectRow);
    else if (!keepDraft && m_list->count() > 0)
        m_list->setCurrentRow(0);
    m_selecting = false;
    if (keepDraft)
        updateControls();
    else
        showCurrent();
}

void WorkloadsDialog::onCurrentChanged(QListWidgetItem *current, QListWidgetItem *previous)
{
    if (m_selecting)
        return;
    if (current && previous && isModified()) {
        const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                                  tr("Discard the changes to %1?")
                                                      .arg(m_editor->definition().name.isEmpty()
                                                               ? tr("the new workload")
                                                               : m_editor->definition().name),
                                                  QMessageBox::Discard | QMessageBox::Cancel);
        if (answer != QMessageBox::Discard) {
            m_selecting = true;
            m_list->setCurrentItem(previous);
            m_selecting = false;
            return;
        }
    }
    showCurrent();
}

void WorkloadsDialog::showCurrent()
{
    m_draft = false;
    const QString name = currentName();
    auto it = std::find_if(m_entries.cbegin(), m_entries.cend(),
                           [&name](const workflows::WorkloadEntry &e) { return e.name == name; });
    if (it == m_entries.cend()) {
        m_editing.clear();
        m_editor->setEnabled(false);
        updateControls();
        return;
    }
    m_editor->setEnabled(true);
    if (it->builtin || !it->definition) {
        m_editing.clear();
        m_editor->showBuiltin(it->name);
    } else {
        m_editing = it->name;
        m_saved = *it->definition;
        m_editor->setDefinition(m_saved);
    }
    updateControls();
}

void WorkloadsDialog::addWorkload()
{
    if (isBusy())
        return;
    if (isModified()) {
        m_editor->focusName();
        showMessage(tr("Save or revert the workload being edited first."), true);
        return;
    }
    WorkloadDefinition fresh;
    fresh.argv = {QStringLiteral("python3"), QStringLiteral("train.py")};
    m_selecting = true;
    m_list->setCurrentRow(-1);
    m_list->clearSelection();
    m_selecting = false;
    m_editing.clear();
    m_draft = true;
    m_saved = fresh;
    m_editor->setEnabled(true);
    m_editor->setDefinition(fresh);
    m_editor->focusName();
    showMessage(tr("A new workload: name it, give its command, then Save (Ctrl+S)."));
    updateControls();
}

void WorkloadsDialog::editCurrent()
{
    if (m_editor->isBuiltin()) {
        showMessage(tr("%1 is built in and cannot be edited; Add (Ctrl+N) one of your own.")
                        .arg(currentName()),
                    true);
        return;
    }
    if (m_editor->isEnabled())
        m_editor->focusName();
}

void WorkloadsDialog::duplicateCurrent()
{
    const QString name = m_editing;
    if (name.isEmpty() || isBusy() || m_editor->isBuiltin())
        return;
    if (isModified()) {
        showMessage(tr("Save or revert the changes first: Duplicate copies the saved "
                       "definition."),
                    true);
        return;
    }
    auto copied = std::make_shared<QString>();
    m_removed.reset();
    m_tasks->run(
        QStringLiteral("store"),
        [path = m_databasePath, name, copied](const TaskContext &) {
            StoreOutcome outcome;
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store) {
                outcome.status = passOn<Status>(store);
                return outcome;
            }
            const Expected<WorkloadDefinition> copy = workflows::duplicateWorkload(**store, name);
            if (!copy)
                outcome.status = passOn<Status>(copy);
            else
                *copied = copy->name;
            outcome.entries = workflows::listWorkloads(**store);
            return outcome;
        },
        [this, copied, name](const StoreOutcome &outcome) {
            m_list->setEnabled(true);
            if (!outcome.status || !outcome.entries) {
                showMessage(!outcome.status ? outcome.status.error() : outcome.entries.error(),
                            true);
                return;
            }
            showEntries(*outcome.entries, *copied);
            showMessage(tr("Saved a copy of %1 as %2: rename it if you like, then Save.")
                            .arg(name, *copied));
            m_editor->focusName();
            Q_EMIT workloadsChanged();
        });
    m_list->setEnabled(false);
    updateControls();
}

void WorkloadsDialog::removeCurrent()
{
    const QString name = m_editing;
    if (name.isEmpty() || isBusy() || m_editor->isBuiltin())
        return;
    auto *box = new QMessageBox(QMessageBox::Question, tr("Remove workload"),
                                tr("Remove the workload %1?").arg(name),
                                QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("removeConfirmBox"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(tr("Only its saved definition goes. Its measurements, models and "
                               "sweeps stay in the store under the name %1, and Undo puts the "
                               "definition back.")
                                .arg(name));
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, name](int) {
        if (box->clickedButton() != box->button(QMessageBox::Yes) || name != m_editing)
            return;
        m_removed = m_saved;
        m_editing.clear();
        runStore(
            tr("Removed %1; its measurements stay in the store.").arg(name),
            [name](Store &store) { return workflows::removeWorkload(store, name); }, QString(),
            true);
    });
    box->open();
}

void WorkloadsDialog::undoRemove()
{
    if (!m_removed || isBusy())
        return;
    const WorkloadDefinition definition = *m_removed;
    m_removed.reset();
    runStore(
        tr("%1 is back.").arg(definition.name),
        [definition](Store &store) { return workflows::addWorkload(store, definition); },
        definition.name);
}

void WorkloadsDialog::save()
{
    if (!m_save->isEnabled())
        return;
    const WorkloadDefinition definition = m_editor->definition();
    const QString oldName = m_editing;
    m_removed.reset();
    // On success the list shows the saved one; a failed save leaves the editor as it is.
    runStore(
        tr("Saved %1.").arg(definition.name),
        [oldName, definition](Store &store) {
            return oldName.isEmpty() ? workflows::addWorkload(store, definition)
                                     : workflows::updateWorkload(store, oldName, definition);
        },
        definition.name);
}

void WorkloadsDialog::revert()
{
    if (m_editing.isEmpty()) {
        showCurrent();
        return;
    }
    m_editor->setDefinition(m_saved);
    showMessage(QString());
    updateControls();
}

void WorkloadsDialog::updateControls()
{
    const bool busy = isBusy();
    const bool builtin = m_editor->isBuiltin();
    const bool stored = !m_editing.isEmpty();
    const bool modified = isModified();
    const QString problem = m_editor->isEnabled() ? m_editor->problem() : QString();
    m_add->setEnabled(!busy);
    m_duplicate->setEnabled(!busy && stored && !builtin);
    m_remove->setEnabled(!busy && stored && !builtin);
    m_save->setEnabled(!busy && m_editor->isEnabled() && !builtin && modified && problem.isEmpty());
    m_revert->setEnabled(!busy && modified);
    if (builtin)
        m_save->setToolTip(tr("Built-in workloads cannot be changed"));
    else if (!problem.isEmpty())
        m_save->setToolTip(tr("Cannot save: %1").arg(problem));
    else
        m_save->setToolTip(tr("Store the workload (Ctrl+S); sweeps already run keep the "
                              "definition they ran with"));
    QString whyNot;
    if (!m_editor->isEnabled())
        whyNot = tr("Choose or add a workload to test");
    else if (builtin)
        whyNot = tr("Built-in workloads need no test: test your own");
    else if (!problem.isEmpty())
        whyNot = tr("Cannot test: %1").arg(problem);
    m_test->setDefinition(m_editor->definition(), whyNot.isEmpty(), whyNot);
}

void WorkloadsDialog::showMessage(const QString &text, bool error, bool undo)
{
    m_message->setText(text);
    QPalette palette = this->palette();
    if (error)
        palette.setColor(QPalette::WindowText, kErrorColor);
    m_message->setPalette(palette);
    m_undo->setVisible(undo);
}

}  // namespace ptwb::ui
