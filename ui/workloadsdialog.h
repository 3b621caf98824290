#pragma once

#include "deviceendpoint.h"
#include "store/workloaddefinition.h"
#include "workloads.h"

#include <QDialog>

#include <functional>

#include <optional>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace ptwb {
class Store;
}

namespace ptwb::ui {

class BackgroundTasks;
class WorkloadEditor;
class WorkloadTestPane;

// Tools > Workloads… and the Sweep view's "Workloads…": the researcher's own workloads saved in
// the store (workflows::listWorkloads and friends, the functions behind `ptwb workload`), beside
// the agent's built-ins (greyed, read-only). Add (Ctrl+N), edit (F2, Enter), duplicate (Ctrl+D),
// remove (Del; asks, says the measurements stay, and can be undone), save (Ctrl+S; disabled
// while the definition has a problem, shown next to its field), and Test on device (Ctrl+T) on
// the window's device. Store work runs off the GUI thread; the test is event-driven.
class WorkloadsDialog : public QDialog
{
    Q_OBJECT

public:
    WorkloadsDialog(const QString &databasePath, const workflows::DeviceEndpoint &device,
                    QWidget *parent = nullptr);
    ~WorkloadsDialog() override;

    WorkloadEditor *editor() const { return m_editor; }
    WorkloadTestPane *testPane() const { return m_test; }
    // The names listed, built-ins first (tests).
    QStringList names() const;
    QString currentName() const;
    bool selectWorkload(const QString &name);
    // Store work in flight (a list, a save, a remove).
    bool isBusy() const;
    // Whether the editor holds changes not yet saved.
    bool isModified() const;
    QString messageText() const;

public Q_SLOTS:
    void reload();
    void addWorkload();
    void editCurrent();
    void duplicateCurrent();
    void removeCurrent();
    void undoRemove();
    void save();
    void revert();

Q_SIGNALS:
    // The list arrived from the store.
    void loaded();
    // A definition was added, changed or removed: views that list workloads reload.
    void workloadsChanged();

protected:
    void done(int result) override;

private:
    struct StoreOutcome;
    void runStore(const QString &what, std::function<Status(Store &)> work, QString select,
                  bool offerUndo = false);
    void showEntries(const QVector<workflows::WorkloadEntry> &entries, const QString &select);
    void onCurrentChanged(QListWidgetItem *current, QListWidgetItem *previous);
    void showCurrent();
    void updateControls();
    void showMessage(const QString &text, bool error = false, bool undo = false);

    QString m_databasePath;
    workflows::DeviceEndpoint m_device;
    BackgroundTasks *m_tasks;
    QVector<workflows::WorkloadEntry> m_entries;
    QString m_editing;  // the stored name the editor shows; empty: a new definition
    WorkloadDefinition m_saved;  // as stored (or as first shown, for a new one)
    bool m_draft = false;  // the editor holds a new definition, not stored yet
    std::optional<WorkloadDefinition> m_removed;  // for Undo
    bool m_selecting = false;

    QListWidget *m_list = nullptr;
    QPushButton *m_add = nullptr;
    QPushButton *m_duplicate = nullptr;
    QPushButton *m_remove = nullptr;
    WorkloadEditor *m_editor = nullptr;
    QPushButton *m_save = nullptr;
    QPushButton *m_revert = nullptr;
    QLabel *m_message = nullptr;
    QPushButton *m_undo = nullptr;
    WorkloadTestPane *m_test = nullptr;
};

}  // namespace ptwb::ui
