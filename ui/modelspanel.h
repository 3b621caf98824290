#pragma once

#include "predict/trainingjob.h"
#include "store/measurement.h"
#include "store/modelrecord.h"

#include <QElapsedTimer>
#include <QFuture>
#include <QList>
#include <QWidget>

#include <atomic>
#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTreeWidget;

namespace ptwb::ui {

namespace modeltasks {
struct Fit;
struct Lists;
}  // namespace modeltasks

class FitPlot;
class LossPlot;

// The Models view: the workloads and models in the store for one device kind; train a reference
// model or transfer one to a workload with live loss curves, progress and cancel; and, for a
// selected model, its MAPE and a predicted-vs-observed plot on the workload's measured modes.
// Training runs in a TrainingJob; loading, saving and predicting run on worker threads with
// their own store connection.
class ModelsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ModelsPanel(QWidget *parent = nullptr);
    ~ModelsPanel() override;  // cancels and waits for its workers

    void setDatabasePath(const QString &path);
    void setDeviceKind(const QString &kind);
    // The configuration reference models are trained with (default: the project's default;
    // tests pass a small one).
    void setTrainingConfig(const predict::RegressorConfig &config);

    // What the controls are set to; each returns false when the choice is not in the lists.
    bool setTrainingWorkload(const QString &workload);
    bool setTransferChoice(qint64 referenceModelId, const QString &targetWorkload);
    bool selectModel(qint64 id);

    bool isBusy() const { return m_phase != Phase::Idle; }
    const QVector<ModelRecord> &models() const { return m_models; }
    LossPlot *timeLoss() const { return m_timeLoss; }
    LossPlot *powerLoss() const { return m_powerLoss; }
    FitPlot *timeFit() const { return m_timeFit; }
    FitPlot *powerFit() const { return m_powerFit; }

public Q_SLOTS:
    void reload();
    void trainReference();
    void transfer();
    void cancel();

Q_SIGNALS:
    void modelSaved(qint64 id, const QString &workload);
    void listsLoaded();
    void fitShown(qint64 id);
    void trainingCancelled();
    void failed(const QString &message);

private:
    enum class Phase { Idle, Loading, Training, Saving };

    template<typename Work>
    void runInBackground(Work work);
    void showLists(const modeltasks::Lists &lists);
    void showFit(const modeltasks::Fit &fit);
    void loadFit(qint64 id);
    void beginJob(const QString &what);
    void startTraining(const std::function<bool(TrainingJob &)> &start, const TrainingData &data);
    void onProgress(const TrainingProgress &progress);
    void onFinished(const std::shared_ptr<PowerModel> &model);
    void endJob(const QString &message);
    void updateActions();
    qint64 selectedModelId() const;

    QString m_path;
    QString m_kind;
    predict::RegressorConfig m_config = predict::RegressorConfig::defaults();
    QVector<WorkloadSummary> m_summaries;
    QVector<ModelRecord> m_models;

    QStackedWidget *m_stack;
    QLabel *m_emptyState;
    QTreeWidget *m_workloadList;
    QTreeWidget *m_modelList;
    QComboBox *m_trainWorkload;
    QComboBox *m_referenceModel;
    QComboBox *m_targetWorkload;
    QPushButton *m_trainButton;
    QPushButton *m_transferButton;
    QPushButton *m_cancelButton;
    QProgressBar *m_progress;
    QLabel *m_status;
    LossPlot *m_timeLoss;
    LossPlot *m_powerLoss;
    FitPlot *m_timeFit;
    FitPlot *m_powerFit;
    QLabel *m_fitSummary;
    QAction *m_trainAction;
    QAction *m_transferAction;
    QAction *m_cancelAction;

    TrainingJob *m_job;
    Phase m_phase = Phase::Idle;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    TrainingData m_jobData;  // what the running job trains on, for the saved model's metrics
    QElapsedTimer m_clock;
    quint64 m_listsGeneration = 0;
    quint64 m_fitGeneration = 0;
    qint64 m_selectAfterLoad = 0;
    QList<QFuture<void>> m_tasks;
};

}  // namespace ptwb::ui
