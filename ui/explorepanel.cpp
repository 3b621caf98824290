#include "explorepanel.h"

#include "batchexplorer.h"
#include "budgetcontrols.h"
#include "concurrentcard.h"
#include "concurrentcontrols.h"
#include "concurrentexplorer.h"
#include "concurrentverifydialog.h"
#include "devicesearchbar.h"
#include "plaintext.h"
#include "recommendationcard.h"
#include "store/store.h"
#include "tradeoffchart.h"
#include "viewactions.h"

#include <QAction>
#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <cmath>
#include <limits>
#include <tuple>

namespace ptwb::ui {

namespace {

// The slowest modes (a few cores at the lowest clocks) take many times longer than the rest;
// the first view stops at the 90th percentile so the front is not squashed flat.
double timeCeiling(QVector<ChartPoint> points)
{
    if (points.size() < 20)
        return qQNaN();
    const auto at = points.begin() + points.size() * 9 / 10;
    std::nth_element(points.begin(), at, points.end(),
                     [](const ChartPoint &a, const ChartPoint &b) { return a.time < b.time; });
    return at->time;
}

QString settingsKey(const QString &kind, const QString &what)
{
    return QStringLiteral("explore/%1/%2").arg(kind, what);
}

}  // namespace

ExplorePanel::ExplorePanel(QWidget *parent)
    : QWidget(parent)
    , m_tasks(new BackgroundTasks(this))
    , m_modes(new QButtonGroup(this))
    , m_stack(new QStackedWidget(this))
    , m_concurrent(new ConcurrentExplorer(this))
    , m_batch(new BatchExplorer(this))
    , m_workloads(new QComboBox(this))
    , m_source(new QLabel(this))
    , m_chart(new TradeoffChart(this))
    , m_budgets(new BudgetControls(this))
    , m_card(new RecommendationCard(this))
    , m_search(new DeviceSearchBar(this))
    , m_find(new QPushButton(tr("&Find on device…"), this))
{
    m_workloads->setObjectName(QStringLiteral("exploreWorkload"));
    m_workloads->setToolTip(tr("The workload whose modes are shown"));
    m_workloads->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_source->setObjectName(QStringLiteral("exploreSource"));
    m_source->setTextFormat(Qt::RichText);
    auto *workloadLabel = new QLabel(tr("&Workload:"), this);
    workloadLabel->setBuddy(m_workloads);
    auto *reset = new QPushButton(tr("Reset &zoom"), this);
    reset->setToolTip(tr("Show every mode again (0 or Home on the chart)"));

    auto *top = new QHBoxLayout;
    top->addWidget(workloadLabel);
    top->addWidget(m_workloads);
    top->addWidget(m_source, 1);
    top->addWidget(m_find);
    top->addWidget(reset);

    auto *side = new QWidget(this);
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(m_budgets);
    sideLayout->addWidget(m_card, 1);
    side->setMinimumWidth(360);
    side->setMaximumWidth(520);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("exploreSplitter"));
    splitter->addWidget(m_chart);
    splitter->addWidget(side);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({880, 400});

    auto *training = new QWidget(this);
    auto *trainingLayout = new QVBoxLayout(training);
    trainingLayout->setContentsMargins(0, 0, 0, 0);
    trainingLayout->addLayout(top);
    trainingLayout->addWidget(m_search);
    trainingLayout->addWidget(splitter, 1);
    m_stack->addWidget(training);
    m_stack->addWidget(m_concurrent);
    m_stack->addWidget(m_batch);

    // Training only, training while serving inference, or the training batch size with the
    // mode: buttons that read as one switch.
    auto *modeRow = new QHBoxLayout;
    modeRow->setSpacing(0);
    const QString modeTip = tr("Switch between training alone, training while serving "
                               "inference requests and choosing the training batch size "
                               "(Ctrl+M)");
    const std::tuple<Mode, QString, QString> modes[] = {
        {Mode::Training, tr("Training only"), QStringLiteral("exploreTrainingMode")},
        {Mode::Concurrent, tr("Training + inference"), QStringLiteral("exploreConcurrentMode")},
        {Mode::Batch, tr("Batch size"), QStringLiteral("exploreBatchMode")},
    };
    for (const auto &[mode, text, name] : modes) {
        auto *button = new QPushButton(text, this);
        button->setCheckable(true);
        button->setToolTip(modeTip);
        button->setObjectName(name);
        m_modes->addButton(button, int(mode));
        modeRow->addWidget(button);
    }
    modeRow->addStretch();
    auto *toggle = new QAction(tr("Switch Explore mode"), this);
    toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    toggle->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(toggle);
    connect(toggle, &QAction::triggered, this, [this] { setMode(Mode((int(mode()) + 1) % 3)); });
    connect(m_modes, &QButtonGroup::idClicked, this, [this](int id) { setMode(Mode(id)); });

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(modeRow);
    layout->addWidget(m_stack, 1);

    m_find->setObjectName(QStringLiteral("findOnDeviceButton"));
    addViewAction(this, new QAction(tr("Find on device…"), this), m_find,
                  QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F),
                  tr("Search the device for the best mode within the budget in force, profiling "
                     "one mode at a time (Ctrl+Shift+F)"),
                  &ExplorePanel::askToFind);
    connect(m_search, &DeviceSearchBar::measured, this, [this] { loadSpace(currentWorkload()); });
    connect(
        m_search, &DeviceSearchBar::found, this,
        [this](const PowerMode &mode, bool, const QString &summary) { showFound(mode, summary); });
    connect(m_search, &DeviceSearchBar::stopped, this, &ExplorePanel::statusMessage);
    connect(m_search, &DeviceSearchBar::runningChanged, this,
            &ExplorePanel::updateApplyAvailability);

    const auto busy = [this] {
        Q_EMIT busyChanged(m_tasks->runningCount() > 0 || m_concurrent->isLoading() ||
                           m_batch->isLoading());
    };
    connect(m_tasks, &BackgroundTasks::busyChanged, this, busy);
    connect(m_concurrent, &ConcurrentExplorer::busyChanged, this, busy);
    connect(m_concurrent, &ConcurrentExplorer::failed, this, &ExplorePanel::failed);
    connect(m_batch, &BatchExplorer::busyChanged, this, busy);
    connect(m_batch, &BatchExplorer::failed, this, &ExplorePanel::failed);
    connect(m_concurrent, &ConcurrentExplorer::loaded, this,
            &ExplorePanel::updateApplyAvailability);
    m_chart->setTooltipProvider([this](int index) { return tooltipFor(index); });
    connect(reset, &QPushButton::clicked, m_chart, &TradeoffChart::resetZoom);
    connect(m_chart, &TradeoffChart::modeClicked, this, &ExplorePanel::selectMode);
    connect(m_budgets, &BudgetControls::budgetChanged, this, &ExplorePanel::recommend);
    connect(m_budgets, &BudgetControls::timeUnitChanged, this, &ExplorePanel::updateTimeUnit);
    connect(m_workloads, &QComboBox::activated, this, [this] {
        QSettings().setValue(settingsKey(m_kind, QStringLiteral("workload")), currentWorkload());
        loadSpace(currentWorkload());
    });
    connect(m_card, &RecommendationCard::applyRequested, this, [this](int index) {
        if (m_space && index >= 0 && index < m_space->size())
            askToApply(m_space->mode(index), false);
    });
    connect(m_concurrent->card(), &ConcurrentCard::applyRequested, this,
            [this](const PowerMode &mode) { askToApply(mode, true); });
    connect(m_concurrent->card(), &ConcurrentCard::verifyRequested, this,
            &ExplorePanel::openVerifyDialog);
    const auto cancelApply = [this] {
        if (m_applier)
            m_applier->cancel();
    };
    const auto keepNow = [this] {
        if (m_applier)
            m_applier->confirmNow();
    };
    connect(m_card, &RecommendationCard::cancelApplyRequested, this, cancelApply);
    connect(m_card, &RecommendationCard::keepNowRequested, this, keepNow);
    connect(m_concurrent->card(), &ConcurrentCard::cancelApplyRequested, this, cancelApply);
    connect(m_concurrent->card(), &ConcurrentCard::keepNowRequested, this, keepNow);
    updateApplyAvailability();
    const QString remembered = QSettings().value(QStringLiteral("explore/mode")).toString();
    setMode(remembered == QLatin1String("concurrent")  ? Mode::Concurrent
                : remembered == QLatin1String("batch") ? Mode::Batch
                                                       : Mode::Training);
}

ExplorePanel::~ExplorePanel() = default;

void ExplorePanel::setMode(Mode mode)
{
    m_modes->button(int(mode))->setChecked(true);
    m_stack->setCurrentIndex(int(mode));
    m_concurrent->setActive(mode == Mode::Concurrent);
    m_batch->setActive(mode == Mode::Batch);
    QSettings().setValue(QStringLiteral("explore/mode"),
                         mode == Mode::Concurrent  ? QStringLiteral("concurrent")
                             : mode == Mode::Batch ? QStringLiteral("batch")
                                                   : QStringLiteral("training"));
}

ExplorePanel::Mode ExplorePanel::mode() const
{
    return Mode(m_stack->currentIndex());
}

bool ExplorePanel::exportChart(const QString &path, QString *error)
{
    switch (mode()) {
    case Mode::Concurrent:
        return m_concurrent->exportChart(path, error);
    case Mode::Batch:
        return m_batch->exportChart(path, error);
    case Mode::Training:
        break;
    }
    return m_chart->exportTo(path, error);
}

void ExplorePanel::setDatabasePath(const QString &path)
{
    m_dbPath = path;
    m_search->setDatabasePath(path);
    m_concurrent->setDatabasePath(path);
    m_batch->setDatabasePath(path);
    if (!m_dbPath.isEmpty())
        loadWorkloads();
}

void ExplorePanel::setDeviceKind(const QString &kind)
{
    if (kind.isEmpty() || kind == m_kind)
        return;
    m_kind = kind;
    m_concurrent->setDeviceKind(kind);
    m_batch->setDeviceKind(kind);
    if (!m_dbPath.isEmpty())
        loadWorkloads();
}

QString ExplorePanel::currentWorkload() const
{
    return m_workloads->currentData().toString();
}

void ExplorePanel::reload()
{
    if (!m_dbPath.isEmpty())
        loadWorkloads();
    m_concurrent->reload();
    m_batch->reload();
}

void ExplorePanel::showWorkload(const QString &workload)
{
    QSettings().setValue(settingsKey(m_kind, QStringLiteral("workload")), workload);
    m_workloads->clear();  // so the reload picks the remembered one
    reload();
}

// The workloads measured on a device of this kind. Workload lists and spaces share one task
// key: whichever was asked last is what the view shows.
void ExplorePanel::loadWorkloads()
{
    m_tasks->run(
        QStringLiteral("load"),
        [path = m_dbPath, kind = m_kind](const TaskContext &) -> Expected<QVector<WorkloadChoice>> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<QVector<WorkloadChoice>>>(store);
            const Expected<QVector<WorkloadSummary>> all = (*store)->summaries();
            if (!all)
                return passOn<Expected<QVector<WorkloadChoice>>>(all);
            QVector<WorkloadChoice> choices;
            for (const WorkloadSummary &s : *all) {
                // Explore draws training time and power per mode at one batch: no inference
                // workloads, and a workload of several batch sizes through its views (NAME@B).
                if (s.deviceKind == kind && s.isTrainable())
                    choices.append({s.workload, s.device, s.distinctModes});
            }
            return choices;
        },
        [this](const Expected<QVector<WorkloadChoice>> &choices) { showWorkloads(choices); });
}

void ExplorePanel::showWorkloads(const Expected<QVector<WorkloadChoice>> &choices)
{
    if (!choices) {
        Q_EMIT failed(choices.error());
        return;
    }
    const QString previous = currentWorkload().isEmpty()
        ? QSettings().value(settingsKey(m_kind, QStringLiteral("workload"))).toString()
        : currentWorkload();
    m_workloads->clear();
    for (const WorkloadChoice &c : *choices) {
        m_workloads->addItem(QStringLiteral("%1 (%2 modes measured)").arg(c.workload).arg(c.modes),
                             c.workload);
    }
    if (choices->isEmpty()) {
        m_space.reset();
        showSpace();
        return;
    }
    const int keep = m_workloads->findData(previous);
    m_workloads->setCurrentIndex(keep >= 0 ? keep : 0);
    loadSpace(currentWorkload());
}

// Every mode with the newest model's predictions: libtorch and SQLite, so on a worker.
void ExplorePanel::loadSpace(const QString &workload)
{
    if (workload.isEmpty())
        return;
    m_tasks->run(
        QStringLiteral("load"),
        [path = m_dbPath,
         workload](const TaskContext &) -> Expected<std::shared_ptr<const TradeoffSpace>> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<std::shared_ptr<const TradeoffSpace>>>(store);
            Expected<TradeoffSpace> loaded =
                TradeoffSpace::load(**store, workload, QString(), false);
            if (!loaded)
                return passOn<Expected<std::shared_ptr<const TradeoffSpace>>>(loaded);
            return std::make_shared<const TradeoffSpace>(std::move(loaded).value());
        },
        [this](const Expected<std::shared_ptr<const TradeoffSpace>> &space) {
            if (!space) {
                Q_EMIT failed(space.error());
                return;
            }
            setSpace(*space);
            m_referenceModelId = 0;
            if ((*space)->modelId() > 0)
                loadReference((*space)->modelId());
        });
}

// The reference a transferred model came from: Find on device then runs pts with it.
void ExplorePanel::loadReference(qint64 modelId)
{
    m_tasks->run(
        QStringLiteral("reference"),
        [path = m_dbPath, modelId](const TaskContext &) -> qint64 {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return 0;
            const Expected<ModelRecord> model = (*store)->model(modelId);
            return model ? model->referenceModelId : 0;
        },
        [this, modelId](qint64 reference) {
            if (m_space && m_space->modelId() == modelId)
                m_referenceModelId = reference;
        });
}

void ExplorePanel::setSpace(std::shared_ptr<const TradeoffSpace> space)
{
    m_space = std::move(space);
    if (m_space) {
        const int perEpoch = QSettings()
                                 .value(settingsKey(m_space->deviceKind(),
                                                    QStringLiteral("epoch/") + m_space->workload()),
                                        0)
                                 .toInt();
        m_budgets->setMinibatchesPerEpoch(perEpoch);
    }
    showSpace();
    if (m_found && m_space && m_space->indexOf(*m_found) >= 0) {
        const int index = m_space->indexOf(*m_found);
        m_card->showMode(*m_space, index, m_budgets->timeUnit(),
                         tr("Found on the device: %1").arg(m_foundSummary));
        m_chart->setSelected(index);
        m_found.reset();
    }
    updateApplyAvailability();
}

void ExplorePanel::showSpace()
{
    const TimeUnit unit = m_budgets->timeUnit();
    QVector<ChartPoint> predicted;
    QVector<ChartPoint> observed;
    QVector<ChartPoint> observedFront;
    QVector<ChartPoint> predictedFront;
    if (m_space) {
        const TradeoffSpace &s = *m_space;
        predicted.reserve(s.hasPredictions() ? s.size() : 0);
        observed.reserve(s.observedCount());
        for (int i = 0; i < s.size(); ++i) {
            if (s.hasPredictions())
                predicted.append({i, s.predictedPowerW(i), unit.fromMs(s.predictedTimeMs(i))});
            if (s.isObserved(i))
                observed.append({i, s.observedPowerW(i), unit.fromMs(s.observedTimeMs(i))});
        }
        for (const TradeoffPoint &p : s.observedFront().powerTime())
            observedFront.append({p.mode, p.powerW, unit.fromMs(p.timeMs)});
        for (const TradeoffPoint &p : s.predictedFront().powerTime())
            predictedFront.append({p.mode, p.powerW, unit.fromMs(p.timeMs)});
    }
    m_chart->setTimeAxisTitle(unit.axisTitle());
    m_chart->setTimeCeiling(timeCeiling(predicted.isEmpty() ? observed : predicted));
    m_chart->setPredicted(predicted);
    m_chart->setObserved(observed);
    m_chart->setFronts(observedFront, predictedFront);

    if (!m_space || m_space->front().isEmpty()) {
        m_source->setText(m_dbPath.isEmpty() ? QString()
                                             : tr("<i>No measurements for this device yet: "
                                                  "import some or run a sweep.</i>"));
        m_card->showMessage(tr("Nothing to recommend yet"),
                            tr("Import measurements, run a sweep, or train a model."));
        m_chart->setSelected(-1);
        m_chart->setBudgets(qQNaN(), qQNaN());
        Q_EMIT loaded(QString(), 0);
        return;
    }
    const TradeoffSpace &s = *m_space;
    m_source->setText(
        s.hasPredictions()
            ? tr("<b>%1</b>: %2 modes, %3 profiled, the rest predicted by model %4")
                  .arg(escaped(s.device()))
                  .arg(s.size())
                  .arg(s.observedCount())
                  .arg(s.modelId())
            : tr("<b>%1</b>: %2 profiled modes <i>(no model yet: train one in Models to "
                 "predict the rest)</i>")
                  .arg(s.device())
                  .arg(s.size()));
    const QVector<TradeoffPoint> &front = s.front().powerTime();
    double minTime = front.last().timeMs;
    double maxTime = front.first().timeMs;
    const double minPower = front.first().powerW;
    double maxPower = front.last().powerW;
    // The slider ranges run from the cheapest front mode to a little past MAXN's draw, so
    // "no mode fits" is reachable at the low end and everything fits at the high end.
    maxPower = std::max(maxPower, s.maxnIndex() >= 0 ? s.powerW(s.maxnIndex()) : maxPower);
    m_budgets->setRanges(std::floor(minPower * 0.9), std::ceil(maxPower * 1.02),
                         std::floor(minTime * 0.9), std::ceil(maxTime * 1.02));
    Q_EMIT loaded(s.workload(), s.size());
    recommend();
}

void ExplorePanel::updateTimeUnit()
{
    if (m_space) {
        QSettings().setValue(
            settingsKey(m_space->deviceKind(), QStringLiteral("epoch/") + m_space->workload()),
            m_budgets->timeUnit().minibatchesPerEpoch);
    }
    const int selected = m_chart->selected();
    showSpace();
    if (selected >= 0 && m_card->titleText() == tr("Selected mode"))
        selectMode(selected);
}

void ExplorePanel::recommend()
{
    if (!m_space || m_space->front().isEmpty())
        return;
    const Budget budget = m_budgets->budget();
    const TimeUnit unit = m_budgets->timeUnit();
    const std::optional<Recommendation> r = m_space->recommend(budget);
    if (!r) {
        m_card->showMessage(tr("Nothing to recommend"), tr("No usable modes."));
        return;
    }
    m_card->showRecommendation(*m_space, *r, budget, unit);
    m_chart->setSelected(r->index);
    const bool power = budget.kind == Budget::Kind::Power;
    m_chart->setBudgets(power ? budget.value : qQNaN(),
                        power ? qQNaN() : unit.fromMs(budget.value));
    updateApplyAvailability();
}

void ExplorePanel::selectMode(int index)
{
    if (!m_space || index < 0 || index >= m_space->size())
        return;
    m_card->showMode(*m_space, index, m_budgets->timeUnit());
    m_chart->setSelected(index);
    updateApplyAvailability();
}

QString ExplorePanel::tooltipFor(int index) const
{
    if (!m_space || index < 0 || index >= m_space->size())
        return QString();
    const TradeoffSpace &s = *m_space;
    const TimeUnit unit = m_budgets->timeUnit();
    QString text =
        QStringLiteral("<b>%1</b><br>%2").arg(s.mode(index).toShort(), s.mode(index).toCanonical());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto line = [&](const QString &label, double ms, double w, double stdMs, double stdW) {
        return QStringLiteral("<br>%1: %2, %3, %4 J")
            .arg(label, unit.format(ms, stdMs), wattsWithSpread(w, stdW))
            .arg((unit.perEpoch() ? unit.minibatchesPerEpoch : 1) * ms * w / 1000, 0, 'f', 2);
    };
    if (s.isObserved(index))
        text += line(tr("observed"), s.observedTimeMs(index), s.observedPowerW(index), nan, nan);
    if (s.hasPredictions())
        text += line(tr("predicted"), s.predictedTimeMs(index), s.predictedPowerW(index),
                     s.predictedTimeStdMs(index), s.predictedPowerStdW(index));
    return text;
}

void ExplorePanel::setApplyDevice(const workflows::DeviceEndpoint &device,
                                  const ModeApplier::Options &options)
{
    m_applyDevice = device;
    m_applyOptions = options;
    if (!m_search->isRunning())
        m_search->setDevice(device);
    updateApplyAvailability();
}

void ExplorePanel::updateApplyAvailability()
{
    const bool usable = m_applyDevice.isValid() && m_space &&
        m_space->deviceKind() == m_applyDevice.kind && !m_search->isRunning();
    m_find->setEnabled(usable);
    if (!m_applyDevice.isValid()) {
        m_card->setApplyAvailable(false, tr("Connect to a device first (Devices)"));
    } else if (m_space && m_space->deviceKind() != m_applyDevice.kind) {
        m_card->setApplyAvailable(false,
                                  tr("These modes are for %1; the device is a %2")
                                      .arg(m_space->deviceKind(), m_applyDevice.kind));
    } else {
        m_card->setApplyAvailable(
            true,
            tr("Apply this mode to %1 (Ctrl+Shift+A). It goes back to its current mode "
               "by itself unless the change is confirmed.")
                .arg(m_applyDevice.name));
    }
    const ConcurrentSpace *pairs = m_concurrent->space();
    if (!m_applyDevice.isValid()) {
        m_concurrent->card()->setApplyAvailable(false, tr("Connect to a device first (Devices)"));
    } else if (pairs && pairs->training().deviceKind() != m_applyDevice.kind) {
        m_concurrent->card()->setApplyAvailable(
            false,
            tr("These modes are for %1; the device is a %2")
                .arg(pairs->training().deviceKind(), m_applyDevice.kind));
    } else {
        m_concurrent->card()->setApplyAvailable(
            true,
            tr("Apply the pick's power mode to %1 (Ctrl+Shift+A). It goes back to its "
               "current mode by itself unless the change is confirmed.")
                .arg(m_applyDevice.name));
    }
}

void ExplorePanel::askToFind()
{
    if (!m_find->isEnabled() || !m_space)
        return;
    // pts when the view shows a transferred model (its reference steers the search) and the
    // budget is a power budget; gmd otherwise.
    SearchGoal goal {QStringLiteral("gmd"), 0, 0, 0};
    if (m_budgets->budget().kind == Budget::Kind::Time) {
        goal.timeBudgetMs = m_budgets->timeBudgetMs();
    } else {
        goal.powerBudgetW = m_budgets->powerBudgetW();
        if (m_referenceModelId > 0) {
            goal.strategy = QStringLiteral("pts");
            goal.referenceModelId = m_referenceModelId;
        }
    }
    m_search->askToStart(m_space->workload(), m_space->device(), goal);
}

void ExplorePanel::showFound(const PowerMode &mode, const QString &summary)
{
    m_found = mode;
    m_foundSummary = summary;
    Q_EMIT statusMessage(summary);
    loadSpace(currentWorkload());  // with the last measurement; setSpace selects the mode
}

void ExplorePanel::askToApply(const PowerMode &mode, bool concurrent)
{
    if (m_applier || m_confirm)
        return;
    m_confirm = new QMessageBox(
        QMessageBox::Question, tr("Apply a power mode"),
        tr("Apply %1 (%2) to %3?\n\nThe device goes back to its current mode by itself unless "
           "the change is confirmed; you can cancel during the %4 s countdown.")
            .arg(mode.toShort(), mode.toCanonical(), m_applyDevice.name)
            .arg(m_applyOptions.keepAfterSeconds),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    makePlain(m_confirm);  // the device's name is the person's text
    m_confirm->setObjectName(QStringLiteral("applyConfirmBox"));
    m_confirm->setDefaultButton(QMessageBox::Yes);
    m_confirm->setAttribute(Qt::WA_DeleteOnClose);
    // open(), not exec(): the window keeps rendering and nothing nests an event loop.
    // The mode, not the index: the view may reload (a model saved, a sweep done) while the box
    // is open, and the same index would then name another mode.
    connect(m_confirm, &QMessageBox::finished, this, [this, mode, concurrent](int result) {
        m_confirm = nullptr;
        if (result == QMessageBox::Yes) {
            m_applyingConcurrent = concurrent;
            startApply(mode);
        }
    });
    m_confirm->open();
}

// A verification run of the concurrent pick (window-modal: no apply starts meanwhile).
void ExplorePanel::openVerifyDialog()
{
    const ConcurrentSpace *space = m_concurrent->space();
    const int pair = m_concurrent->card()->pair();
    if (m_applier || m_confirm || !space || pair < 0 || !m_applyDevice.isValid())
        return;
    auto *dialog = new ConcurrentVerifyDialog(
        m_applyDevice,
        ConcurrentVerifyDialog::pickOf(*space, pair, m_concurrent->controls()->problem(),
                                       m_concurrent->trainingWorkload(),
                                       m_concurrent->inferenceWorkload()),
        this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->open();
}

void ExplorePanel::startApply(const PowerMode &mode, bool byReboot)
{
    ModeApplier::Options options = m_applyOptions;
    options.allowReboot = byReboot;
    m_applier = std::make_unique<ModeApplier>(m_applyDevice.connect, options);
    connect(m_applier.get(), &ModeApplier::phaseChanged, this,
            [this](ModeApplier::Phase phase, const QString &text) {
                if (phase != ModeApplier::Phase::Done)
                    showApplyProgress(text, phase == ModeApplier::Phase::CountingDown);
            });
    connect(m_applier.get(), &ModeApplier::finished, this,
            [this, mode](bool kept, const QString &message) {
                const bool offerReboot = !kept && m_applier->needsReboot();
                showApplyResult(kept, message);
                Q_EMIT statusMessage(message);
                Q_EMIT applyFinished(kept, message);
                // Not deleted inside its own signal.
                m_applier.release()->deleteLater();
                if (offerReboot)
                    askToApplyByReboot(mode);
            });
    m_applier->start(mode);
}

void ExplorePanel::askToApplyByReboot(const PowerMode &mode)
{
    if (m_applier || m_confirm)
        return;
    m_confirm = new QMessageBox(
        QMessageBox::Question, tr("Apply by reboot"),
        tr("%1 accepts lower clocks only until it reboots, and %2 raises one.\n\nApply it by "
           "reboot? The device restarts in %2 (whatever runs on it stops). Once it answers "
           "again you get the usual countdown; unless the change is confirmed, it reboots back "
           "to its current mode by itself.")
            .arg(m_applyDevice.name, mode.toShort()),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    makePlain(m_confirm);
    m_confirm->setObjectName(QStringLiteral("applyByRebootBox"));
    m_confirm->button(QMessageBox::Yes)->setText(tr("&Reboot and apply"));
    m_confirm->setDefaultButton(QMessageBox::Cancel);  // a reboot is not undone by Enter
    m_confirm->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_confirm, &QMessageBox::finished, this, [this, mode](int result) {
        m_confirm = nullptr;
        if (result == QMessageBox::Yes)
            startApply(mode, true);
    });
    m_confirm->open();
}

// The card that asked shows the apply.
void ExplorePanel::showApplyProgress(const QString &text, bool counting)
{
    if (m_applyingConcurrent)
        m_concurrent->card()->showApplyProgress(text, counting);
    else
        m_card->showApplyProgress(text, counting);
}

void ExplorePanel::showApplyResult(bool kept, const QString &text)
{
    if (m_applyingConcurrent)
        m_concurrent->card()->showApplyResult(kept, text);
    else
        m_card->showApplyResult(kept, text);
}

}  // namespace ptwb::ui
