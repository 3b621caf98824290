#include "batchexplorer.h"

#include "batchcard.h"
#include "batchchart.h"
#include "batchcontrols.h"
#include "optimize/paretofront.h"
#include "plaintext.h"
#include "proxyrundialog.h"
#include "store/convergencestore.h"
#include "store/store.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>

namespace ptwb::ui {

namespace {

constexpr int kDeviceRole = Qt::UserRole + 1;

QString settingsKey(const QString &kind, const QString &what)
{
    return QStringLiteral("explore/%1/batch/%2").arg(kind, what);
}

QString batchList(const QVector<int> &batches)
{
    QStringList out;
    for (int b : batches)
        out << QString::number(b);
    return out.join(QStringLiteral(", "));
}

// Per batch size, the rows no other row of that batch beats on both peak power and the
// objective: what the chart draws.
QVector<BatchFront> frontsOf(const workflows::BatchSpace &space, AccuracyObjective objective)
{
    QVector<BatchFront> fronts;
    for (const BatchCandidates &c : space.batches) {
        QVector<TradeoffPoint> points;
        QVector<BatchPick> picks;
        points.reserve(c.modes.size());
        picks.reserve(c.modes.size());
        for (int row = 0; row < c.modes.size(); ++row) {
            picks.append(BatchChoice::pickOf(c, row, space.relation));
            points.append({row, picks.back().peakW, picks.back().cost(objective)});
        }
        BatchFront front;
        front.batch = c.batch;
        for (const TradeoffPoint &p : ParetoFront::front(
                 points, [](const TradeoffPoint &t) { return t.powerW; },
                 [](const TradeoffPoint &t) { return t.timeMs; }))
            front.points.append(picks[p.mode]);
        fronts.append(front);
    }
    return fronts;
}

// The lowest and highest peak of any mode at any batch size.
std::pair<double, double> peakSpan(const workflows::BatchSpace &space)
{
    double low = qInf(), high = 0;
    for (const BatchCandidates &c : space.batches) {
        for (int row = 0; row < c.modes.size(); ++row) {
            const double peak = c.peakAt(row);
            if (std::isfinite(peak)) {
                low = std::min(low, peak);
                high = std::max(high, peak);
            }
        }
    }
    return {low, high};
}

}  // namespace

BatchExplorer::BatchExplorer(QWidget *parent)
    : QWidget(parent)
    , m_tasks(new BackgroundTasks(this))
    , m_workloads(new QComboBox(this))
    , m_source(new QLabel(this))
    , m_chart(new BatchChart(this))
    , m_controls(new BatchControls(this))
    , m_card(new BatchCard(this))
    , m_proxyRun(new QPushButton(tr("Measure by &proxy run…"), this))
{
    m_proxyRun->setObjectName(QStringLiteral("batchProxyRun"));
    m_proxyRun->setToolTip(tr("Measure the workload's samples to accuracy per batch size by "
                              "training with each batch size on a proxy dataset to the target "
                              "accuracy, on any device of the Devices list (ptwb convergence "
                              "--proxy); stored with provenance proxy"));
    connect(m_proxyRun, &QPushButton::clicked, this, &BatchExplorer::openProxyRun);
    m_workloads->setObjectName(QStringLiteral("batchWorkload"));
    m_workloads->setToolTip(tr("A training workload measured at several batch sizes on this kind "
                               "of device, with a samples-to-accuracy relation"));
    m_workloads->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_source->setObjectName(QStringLiteral("batchSource"));
    m_source->setTextFormat(Qt::RichText);
    m_source->setWordWrap(true);
    auto *workloadLabel = new QLabel(tr("&Workload:"), this);
    workloadLabel->setBuddy(m_workloads);

    auto *top = new QHBoxLayout;
    top->addWidget(workloadLabel);
    top->addWidget(m_workloads);
    top->addSpacing(8);
    top->addWidget(m_source, 1);
    top->addWidget(m_proxyRun);

    auto *side = new QWidget(this);
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(m_controls);
    sideLayout->addWidget(m_card, 1);
    side->setMinimumWidth(360);
    side->setMaximumWidth(520);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("batchSplitter"));
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

    connect(m_controls, &BatchControls::changed, this, &BatchExplorer::evaluate);
    connect(m_tasks, &BackgroundTasks::busyChanged, this, &BatchExplorer::busyChanged);
    connect(m_workloads, &QComboBox::activated, this, [this] {
        QSettings().setValue(settingsKey(m_kind, QStringLiteral("workload")), workload());
        loadSpace();
    });
}

BatchExplorer::~BatchExplorer() = default;

void BatchExplorer::setDatabasePath(const QString &path)
{
    m_dbPath = path;
    reload();
}

void BatchExplorer::setDeviceKind(const QString &kind)
{
    if (kind.isEmpty() || kind == m_kind)
        return;
    m_kind = kind;
    m_workloads->clear();
    reload();
}

void BatchExplorer::setActive(bool active)
{
    m_active = active;
    if (m_active && m_stale)
        reload();
}

void BatchExplorer::reload()
{
    m_stale = true;
    if (m_active && !m_dbPath.isEmpty()) {
        m_stale = false;
        loadList();
    }
}

bool BatchExplorer::isLoading() const
{
    return m_tasks->isRunning(QStringLiteral("list")) ||
        m_tasks->isRunning(QStringLiteral("space"));
}

QString BatchExplorer::workload() const
{
    return m_workloads->currentData().toString();
}

bool BatchExplorer::chooseWorkload(const QString &name)
{
    const int i = m_workloads->findData(name);
    const auto *model = qobject_cast<const QStandardItemModel *>(m_workloads->model());
    if (i < 0 || (model && !model->item(i)->isEnabled()))
        return false;
    m_workloads->setCurrentIndex(i);
    QSettings().setValue(settingsKey(m_kind, QStringLiteral("workload")), name);
    loadSpace();
    return true;
}

ProxyRunDialog *BatchExplorer::openProxyRun()
{
    QString name = workload();
    if (name.isEmpty() && m_workloads->count() > 0)
        name = m_workloads->itemData(0).toString();
    auto *dialog = new ProxyRunDialog(m_dbPath, name, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProxyRunDialog::stored, this, [this] { reload(); });
    dialog->show();
    return dialog;
}

bool BatchExplorer::exportChart(const QString &path, QString *error)
{
    return m_chart->exportTo(path, error);
}

// The training workloads of this kind measured at several batch sizes (their NAME@B views are
// not listed), and which of them have a samples-to-accuracy relation.
void BatchExplorer::loadList()
{
    m_tasks->run(
        QStringLiteral("list"),
        [path = m_dbPath, kind = m_kind](const TaskContext &) -> Expected<QVector<Choice>> {
            using Result = Expected<QVector<Choice>>;
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Result>(store);
            const Expected<QVector<WorkloadSummary>> all = (*store)->summaries();
            if (!all)
                return passOn<Result>(all);
            const Expected<QVector<ConvergenceRelation>> relations =
                ConvergenceStore(**store).all();
            if (!relations)
                return passOn<Result>(relations);
            std::set<QString> related;
            for (const ConvergenceRelation &r : *relations)
                related.insert(r.workload);
            QVector<Choice> choices;
            for (const WorkloadSummary &s : *all) {
                if (s.deviceKind != kind || s.batchView || !s.mixesBatches())
                    continue;
                choices.append({s.workload, s.device, s.distinctModes, s.trainingBatches,
                                related.count(s.workload) > 0});
            }
            return choices;
        },
        [this](const Expected<QVector<Choice>> &choices) {
            if (!choices) {
                showNoSpace(tr("Cannot read the store"), choices.error().toHtmlEscaped());
                Q_EMIT failed(choices.error());
                return;
            }
            showList(*choices);
        });
}

void BatchExplorer::showList(const QVector<Choice> &choices)
{
    const QString previous = workload().isEmpty()
        ? QSettings().value(settingsKey(m_kind, QStringLiteral("workload"))).toString()
        : workload();
    m_workloads->clear();
    auto *model = qobject_cast<QStandardItemModel *>(m_workloads->model());
    int keep = -1, first = -1;
    for (const Choice &c : choices) {
        const int i = m_workloads->count();
        m_workloads->addItem(tr("%1 (batch sizes %2)").arg(c.workload, batchList(c.batches)),
                             c.workload);
        m_workloads->setItemData(i, c.device, kDeviceRole);
        if (!c.hasRelation) {
            if (model)
                model->item(i)->setEnabled(false);
            m_workloads->setItemData(
                i,
                plainTip(tr("No samples-to-accuracy relation for %1: measure one by a proxy "
                            "run, or store one with ptwb convergence --workload %1 --import "
                            "FILE|--simulate")
                             .arg(c.workload)),
                Qt::ToolTipRole);
            continue;
        }
        if (first < 0)
            first = i;
        if (c.workload == previous)
            keep = i;
    }
    if (first < 0) {
        m_workloads->setCurrentIndex(choices.isEmpty() ? -1 : 0);
        showNoSpace(
            tr("No batch sizes to choose from yet"),
            choices.isEmpty()
                ? tr("Import or sweep a training workload at several batch sizes on this device "
                     "first (a <i>batch</i> column, or a sweep of NAME@B).")
                : tr("No workload measured at several batch sizes has a samples-to-accuracy "
                     "relation yet: <i>Measure by proxy run…</i>, or store one with <i>ptwb "
                     "convergence --workload W --import FILE</i> (or <i>--simulate</i>)."));
        return;
    }
    m_workloads->setCurrentIndex(keep >= 0 ? keep : first);
    loadSpace();
}

// The workflow of `ptwb recommend --objective time-to-accuracy`: SQLite and the newest models,
// so on a worker.
void BatchExplorer::loadSpace()
{
    const QString name = workload();
    if (name.isEmpty() || m_dbPath.isEmpty())
        return;
    m_source->setText(tr("<i>Loading %1…</i>").arg(name.toHtmlEscaped()));
    m_tasks->run(
        QStringLiteral("space"),
        [path = m_dbPath, device = m_workloads->currentData(kDeviceRole).toString(),
         name](const TaskContext &) -> Expected<std::shared_ptr<const workflows::BatchSpace>> {
            using Result = Expected<std::shared_ptr<const workflows::BatchSpace>>;
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Result>(store);
            Expected<workflows::BatchSpace> space =
                workflows::loadBatchSpace(**store, name, device, false);
            if (!space)
                return passOn<Result>(space);
            return std::make_shared<const workflows::BatchSpace>(std::move(space).value());
        },
        [this](const Expected<std::shared_ptr<const workflows::BatchSpace>> &space) {
            if (!space) {
                showNoSpace(tr("Cannot load these batch sizes"), space.error().toHtmlEscaped());
                Q_EMIT failed(space.error());
                return;
            }
            setSpace(*space);
        });
}

void BatchExplorer::showNoSpace(const QString &title, const QString &text)
{
    m_space.reset();
    m_frontsObjective = -1;
    m_source->clear();
    m_chart->clear();
    m_card->showMessage(title, text);
    Q_EMIT loaded(0);
}

void BatchExplorer::setSpace(std::shared_ptr<const workflows::BatchSpace> space)
{
    m_space = std::move(space);
    m_frontsObjective = -1;
    if (!m_space || m_space->batches.isEmpty()) {
        showNoSpace(tr("No batch sizes"), tr("This workload has no training measurements."));
        return;
    }
    const workflows::BatchSpace &s = *m_space;
    QVector<int> batches;
    for (const BatchCandidates &c : s.batches)
        batches.append(c.batch);
    m_source->setText(tr("<b>%1</b>: batch sizes %2, %3 modes each")
                          .arg(s.device.toHtmlEscaped(), batchList(batches))
                          .arg(s.batches.first().modes.size()));
    m_source->setToolTip(s.sources.join(QLatin1Char('\n')).toHtmlEscaped());  // names as text
    const auto [low, high] = peakSpan(s);
    if (std::isfinite(low))
        m_controls->setCapRange(std::floor(low * 0.9), std::ceil(high * 1.02));
    evaluate();
    Q_EMIT loaded(int(s.batches.size()));
}

void BatchExplorer::evaluate()
{
    if (!m_space)
        return;
    const workflows::BatchSpace &s = *m_space;
    const double cap = m_controls->capW();
    const AccuracyObjective objective = m_controls->objective();
    const std::optional<BatchPick> pick =
        BatchChoice::choose(s.batches, s.relation, cap, objective);
    if (m_frontsObjective != int(objective)) {
        m_chart->setFronts(frontsOf(s, objective), objective);
        m_frontsObjective = int(objective);
    }
    m_chart->setCapAndPick(cap, pick);
    if (pick)
        m_card->showPick(s, *pick, BatchChoice::bestPerBatch(s.batches, s.relation, cap, objective),
                         cap, objective);
    else
        m_card->showNothing(s, cap, peakSpan(s).first);
}

}  // namespace ptwb::ui
