#include "concurrentexplorer.h"

#include "concurrentcard.h"
#include "concurrentchart.h"
#include "concurrentcontrols.h"
#include "concurrentpairs.h"
#include "concurrentstudy.h"
#include "store/store.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSettings>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

namespace {

constexpr int kDeviceRole = Qt::UserRole + 1;

QString settingsKey(const QString &kind, const QString &what)
{
    return QStringLiteral("explore/%1/concurrent/%2").arg(kind, what);
}

// The lowest and highest power any pair draws, before and with the largest safe margin.
std::pair<double, double> powerSpan(const ConcurrentSpace &space)
{
    double low = qInf(), high = 0;
    for (int pair = 0; pair < space.pairCount(); ++pair) {
        const PairCost plain = space.cost(pair);
        const PairCost safe = space.cost(pair, 1.645);
        const double p = std::max(plain.trainPowerW, plain.inferPowerW);
        const double q = std::max(safe.trainPowerW, safe.inferPowerW);
        if (std::isfinite(p))
            low = std::min(low, p);
        if (std::isfinite(q))
            high = std::max(high, q);
    }
    return {low, high};
}

}  // namespace

ConcurrentExplorer::ConcurrentExplorer(QWidget *parent)
    : QWidget(parent)
    , m_tasks(new BackgroundTasks(this))
    , m_training(new QComboBox(this))
    , m_inference(new QComboBox(this))
    , m_source(new QLabel(this))
    , m_chart(new ConcurrentChart(this))
    , m_controls(new ConcurrentControls(this))
    , m_card(new ConcurrentCard(this))
{
    m_training->setObjectName(QStringLiteral("concurrentTraining"));
    m_training->setToolTip(tr("The workload that trains between inference batches (training "
                              "workloads measured on this kind of device)"));
    m_training->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_inference->setObjectName(QStringLiteral("concurrentInference"));
    m_inference->setToolTip(tr("The workload that serves the requests (inference workloads "
                               "measured on the training workload's device, with their batch "
                               "sizes)"));
    m_inference->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_source->setObjectName(QStringLiteral("concurrentSource"));
    m_source->setTextFormat(Qt::RichText);
    m_source->setWordWrap(true);
    auto *trainLabel = new QLabel(tr("&Training:"), this);
    trainLabel->setBuddy(m_training);
    auto *inferLabel = new QLabel(tr("&Inference:"), this);
    inferLabel->setBuddy(m_inference);

    auto *top = new QHBoxLayout;
    top->addWidget(trainLabel);
    top->addWidget(m_training);
    top->addSpacing(8);
    top->addWidget(inferLabel);
    top->addWidget(m_inference);
    top->addSpacing(8);
    top->addWidget(m_source, 1);

    auto *side = new QWidget(this);
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(m_controls);
    sideLayout->addWidget(m_card, 1);
    side->setMinimumWidth(360);
    side->setMaximumWidth(520);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("concurrentSplitter"));
    splitter->addWidget(m_chart);
    splitter->addWidget(side);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({880, 400});

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    m_chart->setTooltipProvider([this](int pair) { return tooltipFor(pair); });
    connect(m_controls, &ConcurrentControls::changed, this, &ConcurrentExplorer::evaluate);
    connect(m_tasks, &BackgroundTasks::busyChanged, this, &ConcurrentExplorer::busyChanged);
    connect(m_training, &QComboBox::activated, this, [this] {
        QSettings().setValue(settingsKey(m_kind, QStringLiteral("training")), trainingWorkload());
        fillInference();
        loadSpace();
    });
    connect(m_inference, &QComboBox::activated, this, [this] {
        QSettings().setValue(settingsKey(m_kind, QStringLiteral("inference")), inferenceWorkload());
        loadSpace();
    });
}

ConcurrentExplorer::~ConcurrentExplorer() = default;

void ConcurrentExplorer::setDatabasePath(const QString &path)
{
    m_dbPath = path;
    reload();
}

void ConcurrentExplorer::setDeviceKind(const QString &kind)
{
    if (kind.isEmpty() || kind == m_kind)
        return;
    m_kind = kind;
    m_training->clear();
    m_inference->clear();
    reload();
}

void ConcurrentExplorer::setActive(bool active)
{
    m_active = active;
    if (m_active && m_stale)
        reload();
}

void ConcurrentExplorer::reload()
{
    m_stale = true;
    if (m_active && !m_dbPath.isEmpty()) {
        m_stale = false;
        loadLists();
    }
}

bool ConcurrentExplorer::isLoading() const
{
    return m_tasks->isRunning(QStringLiteral("lists")) ||
        m_tasks->isRunning(QStringLiteral("space"));
}

QString ConcurrentExplorer::trainingWorkload() const
{
    return m_training->currentData().toString();
}

QString ConcurrentExplorer::inferenceWorkload() const
{
    return m_inference->currentData().toString();
}

bool ConcurrentExplorer::chooseWorkloads(const QString &training, const QString &inference)
{
    const int t = m_training->findData(training);
    if (t < 0)
        return false;
    m_training->setCurrentIndex(t);
    fillInference();
    const int i = m_inference->findData(inference);
    if (i < 0)
        return false;
    m_inference->setCurrentIndex(i);
    QSettings settings;
    settings.setValue(settingsKey(m_kind, QStringLiteral("training")), training);
    settings.setValue(settingsKey(m_kind, QStringLiteral("inference")), inference);
    loadSpace();
    return true;
}

// The training and inference workloads measured on a device of this kind.
void ConcurrentExplorer::loadLists()
{
    m_tasks->run(
        QStringLiteral("lists"),
        [path = m_dbPath, kind = m_kind](const TaskContext &) -> Expected<Lists> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<Lists>>(store);
            const Expected<QVector<WorkloadSummary>> all = (*store)->summaries();
            if (!all)
                return passOn<Expected<Lists>>(all);
            Lists lists;
            for (const WorkloadSummary &s : *all) {
                if (s.deviceKind != kind || (!s.isInference() && !s.isTrainable()))
                    continue;
                (s.isInference() ? lists.inference : lists.training)
                    .append(
                        {s.workload, s.device, s.distinctModes, int(s.inferenceBatches.size())});
            }
            return lists;
        },
        [this](const Expected<Lists> &lists) {
            if (!lists) {
                Q_EMIT failed(lists.error());
                return;
            }
            showLists(*lists);
        });
}

void ConcurrentExplorer::showLists(const Lists &lists)
{
    m_lists = lists;
    const QSettings settings;
    const QString training = trainingWorkload().isEmpty()
        ? settings.value(settingsKey(m_kind, QStringLiteral("training"))).toString()
        : trainingWorkload();
    m_training->clear();
    for (const Choice &c : lists.training) {
        m_training->addItem(tr("%1 (%2 modes)").arg(c.workload).arg(c.modes), c.workload);
        m_training->setItemData(m_training->count() - 1, c.device, kDeviceRole);
    }
    const int keep = m_training->findData(training);
    m_training->setCurrentIndex(keep >= 0 ? keep : 0);
    fillInference();
    if (lists.training.isEmpty() || m_inference->count() == 0) {
        showNoSpace(tr("Nothing to combine yet"),
                    lists.training.isEmpty()
                        ? tr("Import or sweep a training workload on this device first.")
                        : tr("No inference workload measured on %1 yet: import one with File ▸ "
                             "Import CSV (a file with a <i>bs</i> column, the inference batch "
                             "size).")
                              .arg(m_training->currentData(kDeviceRole).toString()));
        return;
    }
    loadSpace();
}

// The inference workloads of the chosen training workload's device.
void ConcurrentExplorer::fillInference()
{
    const QString device = m_training->currentData(kDeviceRole).toString();
    const QString previous = inferenceWorkload().isEmpty()
        ? QSettings().value(settingsKey(m_kind, QStringLiteral("inference"))).toString()
        : inferenceWorkload();
    m_inference->clear();
    for (const Choice &c : std::as_const(m_lists.inference)) {
        if (c.device == device) {
            m_inference->addItem(
                tr("%1 (%2 modes × %3 batch sizes)").arg(c.workload).arg(c.modes).arg(c.batches),
                c.workload);
        }
    }
    const int keep = m_inference->findData(previous);
    m_inference->setCurrentIndex(keep >= 0 ? keep : 0);
}

// The workflow of `ptwb recommend-concurrent`: SQLite and the newest model, so on a worker.
void ConcurrentExplorer::loadSpace()
{
    const QString training = trainingWorkload();
    const QString inference = inferenceWorkload();
    if (training.isEmpty() || inference.isEmpty() || m_dbPath.isEmpty())
        return;
    m_source->setText(
        tr("<i>Loading %1 with %2…</i>").arg(training.toHtmlEscaped(), inference.toHtmlEscaped()));
    m_tasks->run(
        QStringLiteral("space"),
        [path = m_dbPath, device = m_training->currentData(kDeviceRole).toString(), training,
         inference](const TaskContext &) -> Expected<std::shared_ptr<const ConcurrentSpace>> {
            using Result = Expected<std::shared_ptr<const ConcurrentSpace>>;
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Result>(store);
            Expected<ConcurrentSpace> space =
                workflows::loadConcurrentSpace(**store, device, training, inference);
            if (!space)
                return passOn<Result>(space);
            return std::make_shared<const ConcurrentSpace>(std::move(space).value());
        },
        [this](const Expected<std::shared_ptr<const ConcurrentSpace>> &space) {
            if (!space) {
                showNoSpace(tr("Cannot combine these workloads"), space.error().toHtmlEscaped());
                Q_EMIT failed(space.error());
                return;
            }
            setSpace(*space);
        });
}

void ConcurrentExplorer::showNoSpace(const QString &title, const QString &text)
{
    m_space.reset();
    m_source->clear();
    m_chart->clear();
    m_card->showMessage(title, text);
    Q_EMIT loaded(0);
}

void ConcurrentExplorer::setSpace(std::shared_ptr<const ConcurrentSpace> space)
{
    m_space = std::move(space);
    m_byPower.clear();
    if (!m_space || m_space->pairCount() == 0) {
        showNoSpace(tr("No pairs"), tr("These workloads share no power mode."));
        return;
    }
    const ConcurrentSpace &s = *m_space;
    const QLocale locale;
    const QVector<int> &batches = s.data().batches;
    m_source->setText(
        tr("<b>%1</b>: %2 pairs (%3 modes × batch sizes %4), %5 measured, the rest predicted")
            .arg(s.training().device().toHtmlEscaped(), locale.toString(s.pairCount()),
                 locale.toString(s.data().modes.size()),
                 batches.size() > 1
                     ? QStringLiteral("%1–%2").arg(batches.first()).arg(batches.last())
                     : QString::number(batches.value(0)),
                 locale.toString(s.measuredPairs())));
    const auto [low, high] = powerSpan(s);
    if (std::isfinite(low))
        m_controls->setPowerRange(std::floor(low * 0.9), std::ceil(high * 1.02));
    evaluate();
    Q_EMIT loaded(s.pairCount());
}

void ConcurrentExplorer::evaluate()
{
    if (!m_space)
        return;
    QElapsedTimer clock;
    clock.start();
    const ConcurrentProblem problem = m_controls->problem();
    const double sigmas = m_controls->sigmas();
    if (sigmas != m_byPowerSigmas || m_byPower.size() != m_space->pairCount()) {
        m_byPower = pairsByPower(*m_space, sigmas);
        m_byPowerSigmas = sigmas;
    }
    const ConcurrentPicture picture = pictureOf(*m_space, problem, sigmas, m_byPower);
    m_chart->setPicture(picture, problem.powerBudgetW);
    if (picture.pick.pair >= 0)
        m_card->showPick(*m_space, problem, sigmas, picture.pick);
    else
        m_card->showNothing(problem, m_space->pairCount(), picture.keepUp, picture.meetLatency,
                            picture.meetPower);
    m_lastEvaluationMs = clock.nsecsElapsed() / 1e6;
}

QString ConcurrentExplorer::tooltipFor(int pair) const
{
    if (!m_space || pair < 0 || pair >= m_space->pairCount())
        return QString();
    const ConcurrentData &data = m_space->data();
    const PowerMode &mode = data.modes[data.modeOf(pair)];
    const ConcurrentProblem problem = m_controls->problem();
    const ConcurrentOutcome o = m_space->assessPair(problem, pair, m_controls->sigmas());
    QStringList broken;
    if (!o.keepsUp)
        broken << tr("cannot keep up");
    if (!o.meetsLatency)
        broken << tr("over the latency budget");
    if (!o.meetsPower)
        broken << tr("over the power budget");
    return tr("<b>%1</b>, batch %2<br>%3<br>%4 minibatches/s (n = %5), latency %6 s, %7 W<br>"
              "%8%9")
        .arg(mode.toShort())
        .arg(data.batchOf(pair))
        .arg(mode.toCanonical())
        .arg(o.throughput, 0, 'f', 2)
        .arg(o.minibatchesPerCycle)
        .arg(o.latencyS, 0, 'f', 3)
        .arg(o.powerW, 0, 'f', 1)
        .arg(m_space->isMeasured(pair) ? tr("measured") : tr("predicted"),
             broken.isEmpty() ? tr(", feasible") : QStringLiteral(", ") + broken.join(tr(", ")));
}

QByteArray ConcurrentExplorer::pairsCsv() const
{
    return m_space ? ui::pairsCsv(*m_space, m_controls->problem(), m_controls->sigmas())
                   : QByteArray();
}

bool ConcurrentExplorer::exportChart(const QString &path, QString *error)
{
    return m_chart->exportTo(path, error);
}

}  // namespace ptwb::ui
