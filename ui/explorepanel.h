#pragma once

#include "backgroundtasks.h"
#include "deviceendpoint.h"
#include "modeapplier.h"
#include "optimize/tradeoffspace.h"

#include <QWidget>

#include <memory>
#include <optional>

class QButtonGroup;
class QComboBox;
class QLabel;
class QPushButton;
class QMessageBox;
class QStackedWidget;

namespace ptwb::ui {

class BatchExplorer;
class BudgetControls;
class ConcurrentExplorer;
class DeviceSearchBar;
class RecommendationCard;
class TradeoffChart;
struct TimeUnit;

// The main view: every mode of the device in power vs time (predicted cloud, profiled points,
// observed and predicted fronts), the budget sliders, the recommendation card and Apply. The
// store and the model are read on a worker; the sliders only run core's O(log n) query.
// A second mode (Ctrl+M) trains while serving inference: ConcurrentExplorer, whose pick Apply
// sends to the device the same way. A third chooses the training batch size with the mode
// (BatchExplorer, time or energy to accuracy under a cap on the peak); it has no Apply.
class ExplorePanel : public QWidget
{
    Q_OBJECT

public:
    enum class Mode { Training, Concurrent, Batch };

    explicit ExplorePanel(QWidget *parent = nullptr);
    ~ExplorePanel() override;

    void setDatabasePath(const QString &path);
    void setDeviceKind(const QString &kind);
    // Where Apply sends a mode: the device the window is connected to (an invalid endpoint:
    // nothing to apply to), with how the applier waits and confirms.
    void setApplyDevice(const workflows::DeviceEndpoint &device,
                        const ModeApplier::Options &options = {});

    // What the view shows (normally loaded from the store; tests may hand one in).
    void setSpace(std::shared_ptr<const TradeoffSpace> space);
    const TradeoffSpace *space() const { return m_space.get(); }
    QString currentWorkload() const;
    bool isLoading() const { return m_tasks->isRunning(QStringLiteral("load")); }
    bool isApplying() const { return m_applier != nullptr; }

    void setMode(Mode mode);
    Mode mode() const;
    ConcurrentExplorer *concurrent() const { return m_concurrent; }
    BatchExplorer *batch() const { return m_batch; }
    // The chart of the mode on screen, as PNG or SVG.
    bool exportChart(const QString &path, QString *error);

    TradeoffChart *chart() const { return m_chart; }
    BudgetControls *budgets() const { return m_budgets; }
    RecommendationCard *card() const { return m_card; }
    DeviceSearchBar *deviceSearch() const { return m_search; }
    QPushButton *findButton() const { return m_find; }
    QComboBox *workloadCombo() const { return m_workloads; }

public Q_SLOTS:
    // The workload list and the current workload again (a model was saved, a sweep finished).
    void reload();
    // Shows this workload (reloading the list first, as it may be new).
    void showWorkload(const QString &workload);
    void selectMode(int index);

Q_SIGNALS:
    void loaded(const QString &workload, int modes);
    void failed(const QString &message);
    void busyChanged(bool busy);
    void applyFinished(bool kept, const QString &message);
    void statusMessage(const QString &text);

private:
    struct WorkloadChoice
    {
        QString workload;
        QString device;
        qint64 modes = 0;
    };

    void loadWorkloads();
    void showWorkloads(const Expected<QVector<WorkloadChoice>> &choices);
    void loadSpace(const QString &workload);
    void showSpace();
    void recommend();
    void updateTimeUnit();
    void updateApplyAvailability();
    void askToApply(const PowerMode &mode, bool concurrent);
    void openVerifyDialog();
    void startApply(const PowerMode &mode, bool byReboot = false);
    // The device needs a reboot for `mode`: asks whether to apply it that way.
    void askToApplyByReboot(const PowerMode &mode);
    void showApplyProgress(const QString &text, bool counting);
    void showApplyResult(bool kept, const QString &text);
    // Find on device: the search for the power budget on the sliders (DeviceSearchBar).
    void askToFind();
    void showFound(const PowerMode &mode, const QString &summary);
    void loadReference(qint64 modelId);
    QString tooltipFor(int index) const;

    BackgroundTasks *m_tasks;
    QButtonGroup *m_modes;
    QStackedWidget *m_stack;
    ConcurrentExplorer *m_concurrent;
    BatchExplorer *m_batch;
    QComboBox *m_workloads;
    QLabel *m_source;
    TradeoffChart *m_chart;
    BudgetControls *m_budgets;
    RecommendationCard *m_card;
    DeviceSearchBar *m_search;
    QPushButton *m_find;
    // A mode a search found, selected once the reload that shows its measurement arrives.
    std::optional<PowerMode> m_found;
    QString m_foundSummary;
    qint64 m_referenceModelId = 0;  // of the shown model, when it was transferred
    QString m_dbPath;
    QString m_kind = QStringLiteral("orin-agx");
    std::shared_ptr<const TradeoffSpace> m_space;
    workflows::DeviceEndpoint m_applyDevice;
    ModeApplier::Options m_applyOptions;
    std::unique_ptr<ModeApplier> m_applier;
    bool m_applyingConcurrent = false;  // which card shows the apply in progress
    QMessageBox *m_confirm = nullptr;
};

}  // namespace ptwb::ui
