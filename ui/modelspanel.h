#pragma once

#include "backgroundtasks.h"
#include "jobprogress.h"
#include "predict/regressor.h"
#include "store/measurement.h"
#include "store/modelrecord.h"
#include "util/expected.h"

#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTreeWidget;

namespace ptwb {
struct TrainingProgress;
namespace workflows {
struct ModelOverview;
struct StoredFit;
}  // namespace workflows
}  // namespace ptwb

namespace ptwb::ui {

class AccuracyStudyDialog;
class FitPlot;
class LossPlot;

// The Models view: the workloads and models in the store for one device kind; train a reference
// model or transfer one to a workload with live loss curves, progress and cancel; and, for a
// selected model, its MAPE and a predicted-vs-observed plot on the workload's measured modes.
// Reference models of other device kinds are offered too: choosing one transfers across devices
// (AGX Orin -> Orin Nano). The work is the workflows' (workflows/modelworkflow.h), run by
// BackgroundTasks with its own store connection.
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

    bool isBusy() const { return m_training; }
    const QVector<ModelRecord> &models() const { return m_models; }
    LossPlot *timeLoss() const { return m_timeLoss; }
    LossPlot *powerLoss() const { return m_powerLoss; }
    FitPlot *timeFit() const { return m_timeFit; }
    FitPlot *powerFit() const { return m_powerFit; }
    // The accuracy study's dialog once opened, else null.
    AccuracyStudyDialog *accuracyStudy() const { return m_study; }

public Q_SLOTS:
    void reload();
    void trainReference();
    void transfer();
    void cancel();
    // Opens (or raises) the accuracy-vs-profiled-modes study on this store.
    void openAccuracyStudy();

Q_SIGNALS:
    void modelSaved(qint64 id, const QString &workload);
    void listsLoaded();
    void fitShown(qint64 id);
    void trainingCancelled();
    void failed(const QString &message);

private:
    void showLists(const Expected<workflows::ModelOverview> &overview);
    void fillReferences(const QVector<ModelRecord> &all, const QVariant &keep);
    void showFit(qint64 id, const Expected<workflows::StoredFit> &fit);
    void loadFit(qint64 id);
    void beginJob(const QString &what);
    template<typename Work>
    void runTraining(Work work);
    void onProgress(const TrainingProgress &progress);
    void onTrained(const Expected<ModelRecord> &model, bool cancelled);
    void endJob(const QString &message);
    QString kindOfWorkload(const QString &workload, const QString &device) const;
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
    QLabel *m_crossDevice;  // says when the chosen transfer crosses devices
    LossPlot *m_timeLoss;
    LossPlot *m_powerLoss;
    FitPlot *m_timeFit;
    FitPlot *m_powerFit;
    QLabel *m_fitSummary;
    QAction *m_trainAction;
    QAction *m_transferAction;
    QAction *m_cancelAction;
    QPushButton *m_studyButton;
    QAction *m_studyAction;
    AccuracyStudyDialog *m_study = nullptr;

    BackgroundTasks *m_tasks;
    JobProgress m_job;
    bool m_training = false;
    QHash<qint64, QString> m_referenceKinds;  // reference model id -> its device kind
    qint64 m_selectAfterLoad = 0;
};

}  // namespace ptwb::ui
