#include "modelspanel.h"

#include "accuracystudydialog.h"
#include "fitplot.h"
#include "jobprogress.h"
#include "lossplot.h"
#include "modelworkflow.h"
#include "modes/devicespec.h"
#include "plaintext.h"
#include "viewactions.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

QString shortDate(const QString &iso)
{
    const QDateTime time = QDateTime::fromString(iso, Qt::ISODate);
    return time.isValid() ? time.toLocalTime().toString(QStringLiteral("MM-dd HH:mm")) : iso;
}

QString deviceName(const QString &kind)
{
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(kind);
    return spec ? spec->name() : kind;
}

QTreeWidget *makeList(const QStringList &headers, QWidget *parent)
{
    auto *list = new QTreeWidget(parent);
    list->setHeaderLabels(headers);
    list->setRootIsDecorated(false);
    list->setAlternatingRowColors(true);
    list->setUniformRowHeights(true);
    list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return list;
}

// Each stored model lists its in-sample errors (on the modes it was trained on).
QString mapeText(const ModelRecord &record, const char *key)
{
    const QJsonValue value = record.metrics.value(QLatin1String(key));
    return value.isDouble() ? QStringLiteral("%1 %").arg(value.toDouble(), 0, 'f', 2)
                            : QStringLiteral("–");
}

}  // namespace

ModelsPanel::ModelsPanel(QWidget *parent)
    : QWidget(parent)
    , m_stack(new QStackedWidget(this))
    , m_emptyState(new QLabel(this))
    , m_workloadList(makeList({tr("Workload"), tr("Device"), tr("Modes")}, this))
    , m_modelList(makeList({tr("Id"), tr("Method"), tr("Workload"), tr("Created"), tr("Time MAPE"),
                            tr("Power MAPE")},
                           this))
    , m_trainWorkload(new QComboBox(this))
    , m_referenceModel(new QComboBox(this))
    , m_targetWorkload(new QComboBox(this))
    , m_trainButton(new QPushButton(tr("&Train reference model"), this))
    , m_transferButton(new QPushButton(tr("Trans&fer"), this))
    , m_cancelButton(new QPushButton(tr("Cancel"), this))
    , m_progress(new QProgressBar(this))
    , m_status(plainLabel(this))
    , m_crossDevice(new QLabel(this))
    , m_timeLoss(new LossPlot(tr("Time model loss"), this))
    , m_powerLoss(new LossPlot(tr("Power model loss"), this))
    , m_timeFit(new FitPlot(tr("Time"), tr("ms"), true, this))
    , m_powerFit(new FitPlot(tr("Power"), tr("W"), false, this))
    , m_fitSummary(plainLabel(this))
    , m_trainAction(new QAction(tr("Train reference model"), this))
    , m_transferAction(new QAction(tr("Transfer"), this))
    , m_cancelAction(new QAction(tr("Cancel training"), this))
    , m_studyButton(new QPushButton(tr("Accuracy &study…"), this))
    , m_studyAction(new QAction(tr("Accuracy study"), this))
    , m_tasks(new BackgroundTasks(this))
    , m_job(m_progress, m_cancelButton, m_status)
{
    m_emptyState->setAlignment(Qt::AlignCenter);
    m_emptyState->setWordWrap(true);
    m_emptyState->setText(tr("<h3>No measurements of this device yet</h3><p>Import measurements "
                             "or run a sweep first: models are trained on measured modes.</p>"));

    m_workloadList->setToolTip(tr("Workloads measured on this device kind; click one to train "
                                  "on it or transfer to it"));
    m_modelList->setToolTip(tr("Stored models, newest first; MAPE is in-sample (on the modes "
                               "each was trained on). Select one to see its fit"));
    m_trainWorkload->setToolTip(tr("The workload a reference model is trained on (all its "
                                   "measured modes)"));
    m_referenceModel->setToolTip(tr("The reference model to transfer from; one of another device "
                                    "kind transfers across devices"));
    m_targetWorkload->setToolTip(tr("The workload to transfer to, with its few profiled modes"));
    m_referenceModel->setObjectName(QStringLiteral("referenceModel"));
    m_crossDevice->setObjectName(QStringLiteral("crossDeviceNote"));
    m_crossDevice->setTextFormat(Qt::PlainText);
    m_crossDevice->setWordWrap(true);
    for (QComboBox *box : {m_trainWorkload, m_referenceModel, m_targetWorkload})
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);

    addViewAction(
        this, m_trainAction, m_trainButton, QKeySequence(tr("Ctrl+T")),
        tr("Train a reference model on every measured mode of the chosen workload (Ctrl+T)"),
        &ModelsPanel::trainReference);
    addViewAction(this, m_transferAction, m_transferButton, QKeySequence(tr("Ctrl+Shift+T")),
                  tr("Adapt the reference model to the target workload's profiled modes: "
                     "PowerTrain transfer (Ctrl+Shift+T)"),
                  &ModelsPanel::transfer);
    addViewAction(this, m_cancelAction, m_cancelButton, QKeySequence(Qt::Key_Escape),
                  tr("Stop the training; nothing is stored (Esc)"), &ModelsPanel::cancel);
    addViewAction(this, m_studyAction, m_studyButton, QKeySequence(tr("Ctrl+Shift+B")),
                  tr("How accurate PT and NN are against the number of profiled modes, on two "
                     "stored workloads: the paper's study (Ctrl+Shift+B)"),
                  &ModelsPanel::openAccuracyStudy);

    m_progress->setToolTip(tr("Epochs done over both models and every ensemble member"));
    m_fitSummary->setWordWrap(true);
    m_fitSummary->setText(tr("Select a model to see how well it predicts its workload."));

    // Left: what the store holds.
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(new QLabel(tr("<b>Workloads</b>"), left));
    leftLayout->addWidget(m_workloadList, 1);
    leftLayout->addWidget(new QLabel(tr("<b>Models</b>"), left));
    leftLayout->addWidget(m_modelList, 2);

    // Right: the actions, the live losses, the selected model's fit.
    auto *actions = new QGroupBox(tr("Train"), this);
    auto *grid = new QGridLayout(actions);
    grid->addWidget(new QLabel(tr("Reference model on"), actions), 0, 0);
    grid->addWidget(m_trainWorkload, 0, 1, 1, 3);
    grid->addWidget(m_trainButton, 0, 4);
    grid->addWidget(new QLabel(tr("Transfer"), actions), 1, 0);
    grid->addWidget(m_referenceModel, 1, 1);
    grid->addWidget(new QLabel(tr("to"), actions), 1, 2);
    grid->addWidget(m_targetWorkload, 1, 3);
    grid->addWidget(m_transferButton, 1, 4);
    grid->addWidget(m_crossDevice, 2, 1, 1, 4);
    grid->addWidget(m_progress, 3, 0, 1, 4);
    grid->addWidget(m_cancelButton, 3, 4);
    grid->addWidget(m_status, 4, 0, 1, 4);
    grid->addWidget(m_studyButton, 4, 4);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);

    auto *losses = new QHBoxLayout;
    losses->addWidget(m_timeLoss);
    losses->addWidget(m_powerLoss);
    auto *fits = new QHBoxLayout;
    fits->addWidget(m_timeFit);
    fits->addWidget(m_powerFit);
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(actions);
    rightLayout->addLayout(losses, 1);
    rightLayout->addWidget(m_fitSummary);
    rightLayout->addLayout(fits, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 5);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({460, 1000});
    m_stack->addWidget(m_emptyState);
    m_stack->addWidget(splitter);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_stack);

    connect(m_modelList, &QTreeWidget::currentItemChanged, this, [this] {
        if (const qint64 id = selectedModelId(); id > 0)
            loadFit(id);
    });
    connect(m_workloadList, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (!item)
            return;
        m_trainWorkload->setCurrentText(item->text(0));
        m_targetWorkload->setCurrentText(item->text(0));
    });
    connect(m_referenceModel, &QComboBox::currentIndexChanged, this, [this] { updateActions(); });
    connect(m_targetWorkload, &QComboBox::currentIndexChanged, this, [this] { updateActions(); });
    endJob(QString());
}

ModelsPanel::~ModelsPanel() = default;  // m_tasks cancels a running training

void ModelsPanel::setDatabasePath(const QString &path)
{
    m_path = path;
    reload();
    if (m_study)
        m_study->setDatabasePath(path);
}

void ModelsPanel::openAccuracyStudy()
{
    if (m_path.isEmpty())
        return;
    if (!m_study) {
        m_study = new AccuracyStudyDialog(this);
        m_study->setDeviceKind(m_kind);
        m_study->setDatabasePath(m_path);
    } else if (!m_study->isRunning()) {
        m_study->reload();  // workloads imported since
    }
    m_study->show();
    m_study->raise();
    m_study->activateWindow();
}

void ModelsPanel::setDeviceKind(const QString &kind)
{
    m_kind = kind;
    reload();
}

void ModelsPanel::setTrainingConfig(const predict::RegressorConfig &config)
{
    m_config = config;
}

void ModelsPanel::reload()
{
    if (m_path.isEmpty()) {  // nothing to list until there is a store
        m_tasks->drop(QStringLiteral("lists"));
        m_stack->setCurrentIndex(0);
        return;
    }
    m_tasks->run(
        QStringLiteral("lists"),
        [path = m_path](const TaskContext &) { return workflows::modelOverview(path); },
        [this](const Expected<workflows::ModelOverview> &overview) { showLists(overview); });
}

void ModelsPanel::showLists(const Expected<workflows::ModelOverview> &overview)
{
    if (!overview)
        Q_EMIT failed(overview.error());
    const workflows::ModelOverview lists = overview ? *overview : workflows::ModelOverview();
    const auto ofKind = [this](const QString &kind) { return m_kind.isEmpty() || kind == m_kind; };
    m_summaries.clear();
    for (const WorkloadSummary &s : lists.workloads) {
        if (ofKind(s.deviceKind))
            m_summaries.append(s);
    }
    m_models.clear();
    for (const ModelRecord &m : lists.models) {
        if (ofKind(m.deviceKind))
            m_models.append(m);
    }

    const qint64 selected = m_selectAfterLoad > 0 ? m_selectAfterLoad : selectedModelId();
    m_selectAfterLoad = 0;
    const QString trainChoice = m_trainWorkload->currentText();
    const QString targetChoice = m_targetWorkload->currentText();
    const QVariant referenceChoice = m_referenceModel->currentData();
    QSignalBlocker blockModels(m_modelList);
    m_workloadList->clear();
    m_modelList->clear();
    m_trainWorkload->clear();
    m_targetWorkload->clear();
    for (const WorkloadSummary &s : m_summaries) {
        auto *item = new QTreeWidgetItem(
            m_workloadList, {s.workload, s.device, QLocale().toString(s.distinctModes)});
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        if (!s.isTrainable())
            continue;  // models are trained on training measurements at one batch size
        m_trainWorkload->addItem(s.workload, s.device);
        m_targetWorkload->addItem(s.workload, s.device);
    }
    for (const ModelRecord &m : m_models) {
        const QString method = m.acrossDevices()
            ? tr("%1 from %2").arg(m.method, deviceName(m.referenceDeviceKind))
            : m.method;
        auto *item =
            new QTreeWidgetItem(m_modelList,
                                {QString::number(m.id), method, m.workload, shortDate(m.createdAt),
                                 mapeText(m, "time_mape_train"), mapeText(m, "power_mape_train")});
        item->setData(0, Qt::UserRole, m.id);
        for (int column : {0, 4, 5})
            item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
        QString provenance = tr("%1 configuration, %2 training measurements on %3")
                                 .arg(m.config)
                                 .arg(m.trainingIds.size())
                                 .arg(m.device);
        if (m.referenceModelId > 0) {
            provenance += tr("; transferred from model #%1, trained on %2 (%3)")
                              .arg(m.referenceModelId)
                              .arg(m.referenceDevice, deviceName(m.referenceDeviceKind));
        }
        item->setToolTip(0, provenance);
        item->setToolTip(1, provenance);
        if (m.id == selected)
            m_modelList->setCurrentItem(item);
    }
    fillReferences(lists.models, referenceChoice);
    if (!trainChoice.isEmpty())
        m_trainWorkload->setCurrentText(trainChoice);
    if (!targetChoice.isEmpty())
        m_targetWorkload->setCurrentText(targetChoice);
    m_stack->setCurrentIndex(m_summaries.isEmpty() ? 0 : 1);
    updateActions();
    blockModels.unblock();
    if (selectedModelId() > 0)
        loadFit(selectedModelId());
    else {
        m_timeFit->clear();
        m_powerFit->clear();
    }
    Q_EMIT listsLoaded();
}

// The reference models of this device kind first, then those of other kinds, which transfer
// across devices (PowerTrain's second claim: docs/prediction.md).
void ModelsPanel::fillReferences(const QVector<ModelRecord> &all, const QVariant &keep)
{
    QSignalBlocker block(m_referenceModel);
    m_referenceModel->clear();
    m_referenceKinds.clear();
    for (const bool sameKind : {true, false}) {
        for (const ModelRecord &m : all) {
            const bool same = m_kind.isEmpty() || m.deviceKind == m_kind;
            if (m.method != QLatin1String("reference") || same != sameKind)
                continue;
            const QString label = same
                ? tr("#%1 %2 (%3)").arg(m.id).arg(m.workload, shortDate(m.createdAt))
                : tr("#%1 %2 from %3 (%4)")
                      .arg(m.id)
                      .arg(m.workload, deviceName(m.deviceKind), shortDate(m.createdAt));
            m_referenceModel->addItem(label, m.id);
            if (!same) {
                m_referenceModel->setItemData(
                    m_referenceModel->count() - 1,
                    plainTip(tr("Trained on %1: the transfer adapts it across device kinds")
                                 .arg(deviceName(m.deviceKind))),
                    Qt::ToolTipRole);
            }
            m_referenceKinds.insert(m.id, m.deviceKind);
        }
    }
    if (const int row = m_referenceModel->findData(keep); row >= 0)
        m_referenceModel->setCurrentIndex(row);
    if (m_referenceModel->count() == 0)
        m_referenceModel->addItem(tr("(train a reference model first)"));
}

qint64 ModelsPanel::selectedModelId() const
{
    const QTreeWidgetItem *item = m_modelList->currentItem();
    return item ? item->data(0, Qt::UserRole).toLongLong() : 0;
}

bool ModelsPanel::setTrainingWorkload(const QString &workload)
{
    const int row = m_trainWorkload->findText(workload);
    if (row >= 0)
        m_trainWorkload->setCurrentIndex(row);
    return row >= 0;
}

bool ModelsPanel::setTransferChoice(qint64 referenceModelId, const QString &targetWorkload)
{
    const int reference = m_referenceModel->findData(referenceModelId);
    const int target = m_targetWorkload->findText(targetWorkload);
    if (reference < 0 || target < 0)
        return false;
    m_referenceModel->setCurrentIndex(reference);
    m_targetWorkload->setCurrentIndex(target);
    return true;
}

bool ModelsPanel::selectModel(qint64 id)
{
    for (int i = 0; i < m_modelList->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_modelList->topLevelItem(i);
        if (item->data(0, Qt::UserRole).toLongLong() == id) {
            m_modelList->setCurrentItem(item);
            return true;
        }
    }
    return false;
}

void ModelsPanel::loadFit(qint64 id)
{
    m_timeFit->clear(tr("predicting…"));
    m_powerFit->clear(tr("predicting…"));
    m_tasks->run(
        QStringLiteral("fit"),
        [path = m_path, id](const TaskContext &) { return workflows::storedFit(path, id); },
        [this, id](const Expected<workflows::StoredFit> &fit) { showFit(id, fit); });
}

void ModelsPanel::showFit(qint64 id, const Expected<workflows::StoredFit> &stored)
{
    if (!stored) {
        m_timeFit->clear(tr("unavailable"));
        m_powerFit->clear(tr("unavailable"));
        m_fitSummary->setText(tr("Model %1: %2").arg(id).arg(stored.error()));
        return;
    }
    const ModelRecord &r = stored->record;
    const ModelFit &fit = stored->fit;
    m_timeFit->setData(fit.predicted.timeMs, fit.observed.timeMs, fit.timeMape);
    m_powerFit->setData(fit.predicted.powerW, fit.observed.powerW, fit.powerMape);
    m_fitSummary->setText(
        tr("<b>Model %1</b> (%2 of %3, trained on %4 measurements): on all %5 measured modes of "
           "%3, MAPE of time <b>%6 %</b>, of power <b>%7 %</b>.")
            .arg(r.id)
            .arg(r.method, r.workload)
            .arg(r.trainingIds.size())
            .arg(fit.observed.size())
            .arg(fit.timeMape, 0, 'f', 2)
            .arg(fit.powerMape, 0, 'f', 2));
    Q_EMIT fitShown(id);
}

void ModelsPanel::beginJob(const QString &what)
{
    m_training = true;
    m_job.begin(what);
    m_timeLoss->clear();
    m_powerLoss->clear();
    updateActions();
}

// Runs a train or transfer workflow with live losses (posted from the worker) and a cancel flag.
template<typename Work>
void ModelsPanel::runTraining(Work work)
{
    QPointer<ModelsPanel> self(this);
    m_tasks->run(
        QStringLiteral("train"),
        [work, self](const TaskContext &context) {
            TrainingCallbacks callbacks;
            callbacks.progress = [context, self](const TrainingProgress &p) {
                context.post([self, p] {
                    if (self)
                        self->onProgress(p);
                });
            };
            const auto cancel = context.cancelFlag();
            callbacks.cancelled = [cancel] { return cancel->load(); };
            Expected<ModelRecord> model = work(callbacks);
            const bool cancelled = !model && context.cancelled();  // a stored model stays stored
            return std::make_pair(model, cancelled);
        },
        [this](const std::pair<Expected<ModelRecord>, bool> &outcome) {
            onTrained(outcome.first, outcome.second);
        });
}

void ModelsPanel::trainReference()
{
    if (isBusy() || m_trainWorkload->count() == 0 || m_path.isEmpty())
        return;
    workflows::TrainRequest request;
    request.databasePath = m_path;
    request.workload = m_trainWorkload->currentText();
    request.device = m_trainWorkload->currentData().toString();
    request.config = m_config;
    beginJob(tr("Training a reference model on %1…").arg(request.workload));
    runTraining([request](const TrainingCallbacks &callbacks) {
        return workflows::train(request, callbacks);
    });
}

void ModelsPanel::transfer()
{
    const qint64 referenceId = m_referenceModel->currentData().toLongLong();
    if (isBusy() || referenceId <= 0 || m_targetWorkload->count() == 0 || m_path.isEmpty())
        return;
    workflows::TransferRequest request;
    request.databasePath = m_path;
    request.referenceModelId = referenceId;
    request.workload = m_targetWorkload->currentText();
    request.device = m_targetWorkload->currentData().toString();
    // Choosing a reference of another device kind is the consent to transfer across devices.
    const QString referenceKind = m_referenceKinds.value(referenceId);
    request.allowDeviceTransfer = referenceKind != kindOfWorkload(request.workload, request.device);
    beginJob(request.allowDeviceTransfer
                 ? tr("Transferring model %1 from %2 to %3…")
                       .arg(referenceId)
                       .arg(deviceName(referenceKind), request.workload)
                 : tr("Transferring model %1 to %2…").arg(referenceId).arg(request.workload));
    runTraining([request](const TrainingCallbacks &callbacks) {
        return workflows::transfer(request, callbacks);
    });
}

QString ModelsPanel::kindOfWorkload(const QString &workload, const QString &device) const
{
    for (const WorkloadSummary &s : m_summaries) {
        if (s.workload == workload && s.device == device)
            return s.deviceKind;
    }
    return m_kind;
}

void ModelsPanel::onProgress(const TrainingProgress &p)
{
    if (!m_training)
        return;
    const bool power = p.target == QLatin1String("power");
    (power ? m_powerLoss : m_timeLoss)
        ->addEpoch(p.member, p.epoch, p.epochs, p.trainingLoss, p.validationLoss);
    // The time model then the power model, each member after the other.
    const double perTarget = double(p.members) * p.epochs;
    const double done = (power ? perTarget : 0) + double(p.member) * p.epochs + p.epoch;
    const double fraction = std::clamp(done / (2 * perTarget), 0.0, 1.0);
    if (fraction >= 1) {
        m_job.updateText(fraction, tr("saving…"));
        return;
    }
    m_job.update(fraction,
                 tr("%1 model, member %2/%3, epoch %4/%5")
                     .arg(power ? tr("power") : tr("time"))
                     .arg(p.member + 1)
                     .arg(p.members)
                     .arg(p.epoch)
                     .arg(p.epochs));
}

void ModelsPanel::onTrained(const Expected<ModelRecord> &model, bool cancelled)
{
    if (cancelled) {
        endJob(tr("Training cancelled; nothing was stored."));
        Q_EMIT trainingCancelled();
    } else if (!model) {
        endJob(tr("Training failed: %1").arg(model.error()));
        Q_EMIT failed(model.error());
    } else {
        endJob(tr("Model %1 of %2 stored.").arg(model->id).arg(model->workload));
        m_selectAfterLoad = model->id;
        reload();
        Q_EMIT modelSaved(model->id, model->workload);
    }
}

void ModelsPanel::cancel()
{
    if (!isBusy())
        return;
    m_tasks->cancel(QStringLiteral("train"));
    m_job.setStatus(tr("Cancelling…"));
}

void ModelsPanel::endJob(const QString &message)
{
    m_training = false;
    m_job.end(message);
    updateActions();
}

void ModelsPanel::updateActions()
{
    const bool idle = !isBusy();
    const bool canTrain = idle && m_trainWorkload->count() > 0;
    const bool canTransfer =
        idle && m_referenceModel->currentData().toLongLong() > 0 && m_targetWorkload->count() > 0;
    m_trainAction->setEnabled(canTrain);
    m_trainButton->setEnabled(canTrain);
    m_transferAction->setEnabled(canTransfer);
    m_transferButton->setEnabled(canTransfer);
    m_cancelAction->setEnabled(!idle);
    m_cancelButton->setEnabled(!idle);
    m_status->setVisible(!m_status->text().isEmpty());

    // Say plainly when the chosen transfer crosses devices, before it runs.
    const qint64 referenceId = m_referenceModel->currentData().toLongLong();
    const QString referenceKind = m_referenceKinds.value(referenceId);
    const QString targetKind =
        kindOfWorkload(m_targetWorkload->currentText(), m_targetWorkload->currentData().toString());
    const bool across = referenceId > 0 && !referenceKind.isEmpty() && !targetKind.isEmpty() &&
        referenceKind != targetKind;
    m_crossDevice->setText(across ? tr("Across devices: model #%1 was trained on %2; the transfer "
                                       "adapts it to %3 from %4's profiled modes there.")
                                        .arg(referenceId)
                                        .arg(deviceName(referenceKind), deviceName(targetKind),
                                             m_targetWorkload->currentText())
                                  : QString());
    m_crossDevice->setVisible(across);
}

}  // namespace ptwb::ui
