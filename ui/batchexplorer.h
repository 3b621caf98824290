#pragma once

#include "backgroundtasks.h"
#include "batchchoice.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QPushButton;

namespace ptwb::ui {

class BatchCard;
class BatchChart;
class BatchControls;
class ProxyRunDialog;
struct BatchFront;

// Explore's batch size mode (issue 17): a training workload measured at several batch sizes,
// each batch size's front of time (or energy) to the target accuracy against peak power, a cap
// on the peak and the objective, and the (batch size, mode) pick on a card. The space is loaded
// on a worker by the workflow of `ptwb recommend --objective time-to-accuracy`
// (workflows::loadBatchSpace); moving the cap re-runs core's BatchChoice on the GUI thread (a few
// thousand rows per batch size).
class BatchExplorer : public QWidget
{
    Q_OBJECT

public:
    explicit BatchExplorer(QWidget *parent = nullptr);
    ~BatchExplorer() override;

    void setDatabasePath(const QString &path);
    void setDeviceKind(const QString &kind);
    // Loads only while shown: an inactive explorer just remembers that it is out of date.
    void setActive(bool active);

    const workflows::BatchSpace *space() const { return m_space.get(); }
    bool isLoading() const;
    QString workload() const;
    // Shows this workload (it must be in the list and have a relation), then loads its space.
    bool chooseWorkload(const QString &workload);

    bool exportChart(const QString &path, QString *error);

    BatchChart *chart() const { return m_chart; }
    BatchControls *controls() const { return m_controls; }
    BatchCard *card() const { return m_card; }
    QComboBox *workloadCombo() const { return m_workloads; }
    QPushButton *proxyRunButton() const { return m_proxyRun; }
    // "Measure by proxy run…": the dialog for the current workload (modeless, deletes itself on
    // close; a relation it stores reloads the explorer).
    ProxyRunDialog *openProxyRun();

public Q_SLOTS:
    // The workload list and the space again (an import, a sweep, a model or a relation changed).
    void reload();

Q_SIGNALS:
    void loaded(int batches);
    void failed(const QString &message);
    void busyChanged(bool busy);

private:
    struct Choice
    {
        QString workload;
        QString device;
        qint64 modes = 0;
        QVector<int> batches;
        bool hasRelation = false;
    };

    void loadList();
    void showList(const QVector<Choice> &choices);
    void loadSpace();
    void setSpace(std::shared_ptr<const workflows::BatchSpace> space);
    void showNoSpace(const QString &title, const QString &text);
    void evaluate();

    BackgroundTasks *m_tasks;
    QComboBox *m_workloads;
    QLabel *m_source;
    BatchChart *m_chart;
    BatchControls *m_controls;
    BatchCard *m_card;
    QPushButton *m_proxyRun;
    QString m_dbPath;
    QString m_kind = QStringLiteral("orin-agx");
    std::shared_ptr<const workflows::BatchSpace> m_space;
    // The fronts drawn, for this objective (-1: none yet for this space).
    int m_frontsObjective = -1;
    bool m_active = false;
    bool m_stale = true;
};

}  // namespace ptwb::ui
