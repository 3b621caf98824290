#include "concurrentcompare.h"

#include "chartstyle.h"
#include "concurrentcompareform.h"
#include "concurrentstudy.h"
#include "store/store.h"
#include "strategybarchart.h"
#include "strategyboxchart.h"
#include "viewactions.h"
#include "viewexport.h"

#include <QAction>
#include <QFileDialog>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

const QStringList kColumns {
    QObject::tr("Strategy"),          QObject::tr("Solvable"),         QObject::tr("Shortfall %"),
    QObject::tr("Exactly optimal %"), QObject::tr("Feasible found %"), QObject::tr("Violations %"),
    QObject::tr("Pairs / problem"),   QObject::tr("Pairs / repeat"),   QObject::tr("s / repeat")};

const QStringList kColumnTips {
    {},
    QObject::tr("Problems with a feasible optimum, counted once per repeat: the problems the "
                "other columns are about"),
    QObject::tr("How far below the optimum's training throughput the answers are (the median over "
                "those problems; no answer, or one over a budget, counts as 100 %)"),
    QObject::tr("Share of those problems answered with the optimum's throughput"),
    QObject::tr("Share of those problems given an answer that meets every budget"),
    QObject::tr("Share of all its answers that break the latency or power budget on the "
                "measured data"),
    QObject::tr("Distinct (mode, batch) pairs that answered one problem (median)"),
    QObject::tr("Distinct pairs profiled per repeat, over every problem (mean)"),
    QObject::tr("Wall time per repeat")};

}  // namespace

ConcurrentComparePanel::ConcurrentComparePanel(QWidget *parent)
    : QWidget(parent)
    , m_tasks(new BackgroundTasks(this))
    , m_stack(new QStackedWidget(this))
    , m_form(new ConcurrentCompareForm(this))
    , m_runButton(new QPushButton(tr("&Run evaluation"), this))
    , m_cancelButton(new QPushButton(tr("Cancel"), this))
    , m_exportButton(new QPushButton(tr("Export CSV…"), this))
    , m_chartsButton(new QPushButton(tr("Export charts…"), this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_shortfallChart(new StrategyBoxChart(tr("Training throughput below the optimum"),
                                            tr("% below the optimum"), chartColors::time, this))
    , m_answersChart(
          new StrategyBarChart(tr("Problems answered"), tr("% of feasible problems"), this))
    , m_violationChart(new StrategyBarChart(tr("Answers over a budget"), tr("% of answers"), this))
    , m_charts(new QWidget(this))
    , m_table(new QTableWidget(0, int(kColumns.size()), this))
    , m_runAction(new QAction(tr("Run evaluation"), this))
    , m_cancelAction(new QAction(tr("Cancel evaluation"), this))
    , m_exportAction(new QAction(tr("Export CSV"), this))
    , m_job(m_progress, m_cancelButton, m_status)
{
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);  // errors name files and workloads: shown as they are
    addViewAction(this, m_runAction, m_runButton, QKeySequence(Qt::CTRL | Qt::Key_Return),
                  tr("Evaluate the checked strategies on every problem of the grid (Ctrl+Enter)"),
                  &ConcurrentComparePanel::run);
    addViewAction(this, m_cancelAction, m_cancelButton, QKeySequence(Qt::Key_Escape),
                  tr("Stop the evaluation; finished strategies stay (Esc)"),
                  &ConcurrentComparePanel::cancel);
    addViewAction(this, m_exportAction, m_exportButton, QKeySequence(tr("Ctrl+Shift+E")),
                  tr("Save the table as CSV (Ctrl+Shift+E)"),
                  &ConcurrentComparePanel::chooseExportFile);
    m_chartsButton->setToolTip(tr("Save the three charts as one PNG or SVG picture (also File ▸ "
                                  "Export chart, Ctrl+Shift+S)"));
    connect(m_chartsButton, &QPushButton::clicked, this, &ConcurrentComparePanel::chooseChartsFile);
    connect(m_form, &ConcurrentCompareForm::changed, this, &ConcurrentComparePanel::updateActions);

    m_table->setHorizontalHeaderLabels(kColumns);
    for (int i = 1; i < kColumns.size(); ++i)
        m_table->horizontalHeaderItem(i)->setToolTip(kColumnTips.value(i));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(60);
    m_table->setToolTip(tr("Every metric per strategy, as `ptwb evaluate-concurrent` prints "
                           "them; see docs/optimization.md"));
    m_shortfallChart->setToolTip(
        tr("How far below the optimum's training throughput each answer is, over every problem "
           "with a feasible optimum and every repeat (no answer, or one over a budget, is 100 %). "
           "Box: quartiles and median; whiskers: the farthest answers within 1.5 box heights"));
    m_answersChart->setToolTip(tr("Share of the problems with a feasible optimum that the "
                                  "strategy answered within every budget, and exactly optimally"));
    m_violationChart->setToolTip(tr("Share of the strategy's answers that break the latency or "
                                    "the power budget on the measured data"));

    auto *controls = new QGroupBox(tr("Concurrent evaluation"), this);
    auto *column = new QVBoxLayout(controls);
    column->addWidget(m_form);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_cancelButton);
    buttons->addStretch(1);
    column->addLayout(buttons);
    auto *exports = new QHBoxLayout;
    exports->addStretch(1);
    exports->addWidget(m_exportButton);
    exports->addWidget(m_chartsButton);
    column->addLayout(exports);
    column->addWidget(m_progress);
    column->addWidget(m_status);

    auto *charts = new QHBoxLayout(m_charts);
    charts->setContentsMargins(0, 0, 0, 0);
    charts->addWidget(m_shortfallChart, 4);
    charts->addWidget(m_answersChart, 4);
    charts->addWidget(m_violationChart, 3);
    m_answersChart->setValueLabelsVisible(false);  // two sets side by side: hover shows them
    auto *results = new QWidget(this);
    auto *resultsLayout = new QVBoxLayout(results);
    resultsLayout->setContentsMargins(0, 0, 0, 0);
    resultsLayout->addWidget(m_charts, 3);
    resultsLayout->addWidget(m_table, 2);

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(controls);
    leftLayout->addStretch(1);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(results);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({430, 1030});
    auto *empty = new QLabel(
        tr("<h3>No training and inference pair of this device yet</h3><p>The concurrent "
           "evaluation needs a training workload and an inference workload measured on the same "
           "modes: import an inference file (the public inference layout, with a <tt>bs</tt> "
           "column) beside a training one, or sweep inference batch sizes.</p>"),
        this);
    empty->setAlignment(Qt::AlignCenter);
    empty->setWordWrap(true);
    m_stack->addWidget(empty);
    m_stack->addWidget(splitter);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);

    endRun(QString());
    updateCharts();
}

ConcurrentComparePanel::~ConcurrentComparePanel() = default;  // m_tasks cancels a running run

void ConcurrentComparePanel::setDatabasePath(const QString &path)
{
    m_path = path;
}

void ConcurrentComparePanel::setWorkloads(const QVector<WorkloadSummary> &summaries)
{
    m_form->setWorkloads(summaries);
    m_stack->setCurrentIndex(m_form->hasPair() ? 1 : 0);
    updateActions();
}

void ConcurrentComparePanel::run()
{
    if (m_running || !m_form->hasPair() || m_path.isEmpty())
        return;
    const Expected<ConcurrentEvaluationOptions> options = m_form->options();
    if (!options) {
        showStatus(options.error());
        return;
    }
    const workflows::ConcurrentWorkloads workloads = m_form->workloads();
    m_results.clear();
    m_table->setRowCount(0);
    updateCharts();
    m_running = true;
    m_runRepeats = options->repeats;
    m_runProblems = int(options->grid.problems().size());
    m_job.begin(tr("Evaluating %1 on %2 + %3: %n problems, %4 repeats…", nullptr,
                   int(options->grid.problems().size()))
                    .arg(options->strategies.join(QStringLiteral(", ")),
                         workloads.training.workload, workloads.inference.workload)
                    .arg(options->repeats));
    updateActions();

    // Reports reach the panel in order, and only for the run that is still current.
    QPointer<ConcurrentComparePanel> self(this);
    m_tasks->run(
        QStringLiteral("run"),
        [path = m_path, workloads, options = *options, self](const TaskContext &context) {
            using Outcome = std::pair<Expected<QVector<ConcurrentMetrics>>, bool>;
            const auto post = [context,
                               self](std::function<void(ConcurrentComparePanel &)> report) {
                context.post([self, report] {
                    if (self)
                        report(*self);
                });
            };
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return Outcome {passOn<Expected<QVector<ConcurrentMetrics>>>(store), false};
            Expected<ConcurrentEvaluator> evaluator =
                workflows::concurrentEvaluator(**store, workloads, options);
            if (!evaluator)
                return Outcome {passOn<Expected<QVector<ConcurrentMetrics>>>(evaluator), false};
            const auto cancel = context.cancelFlag();
            evaluator->setCancelled([cancel] { return cancel->load(); });
            evaluator->setProgress([post](int done, int total) {
                post([done, total](ConcurrentComparePanel &p) { p.onProgress(done, total); });
            });
            const auto done = [post](const ConcurrentMetrics &m) {
                post([m](ConcurrentComparePanel &p) { p.addResult(m); });
            };
            const auto log = [post](const QString &line) {
                post([line](ConcurrentComparePanel &p) { p.m_job.setStatus(line); });
            };
            return Outcome {evaluator->run(done, log), context.cancelled()};
        },
        [this](const std::pair<Expected<QVector<ConcurrentMetrics>>, bool> &outcome) {
            const auto &[results, wasCancelled] = outcome;
            if (wasCancelled) {
                endRun(tr("Cancelled: %n strategies finished.", nullptr, int(m_results.size())));
                Q_EMIT cancelled();
            } else if (!results) {
                endRun(tr("The evaluation failed: %1").arg(results.error()));
                Q_EMIT failed(results.error());
            } else {
                const int solvable = results->isEmpty() ? 0 : results->first().problems;
                endRun(tr("%n strategies evaluated in %1: %2 of the %3 problems have a feasible "
                          "answer (Solvable counts them once per repeat).",
                          nullptr, int(results->size()))
                           .arg(durationText(m_job.elapsedSeconds()))
                           .arg(solvable / std::max(1, m_runRepeats))
                           .arg(m_runProblems));
                Q_EMIT finished();
            }
        });
}

void ConcurrentComparePanel::onProgress(int done, int total)
{
    const double fraction = total > 0 ? double(done) / total : 0;
    m_job.update(fraction, tr("%1 of %2 repeats").arg(done).arg(total));
}

void ConcurrentComparePanel::addResult(const ConcurrentMetrics &m)
{
    m_results.append(m);
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    const QVector<QPair<double, int>> numbers {
        {double(m.problems), 0}, {m.throughputShortfallMedian, 2},
        {m.exactlyOptimal, 1},   {m.feasibleFound, 1},
        {m.violations, 2},       {m.profiledPerProblem, 1},
        {m.profiled, 1},         {m.seconds, 3}};
    m_table->setItem(row, 0, new QTableWidgetItem(m.strategy));
    for (int i = 0; i < numbers.size(); ++i) {
        auto *item =
            new QTableWidgetItem(QLocale().toString(numbers[i].first, 'f', numbers[i].second));
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, i + 1, item);
    }
    updateCharts();
}

void ConcurrentComparePanel::updateCharts()
{
    QStringList names;
    QVector<Distribution> shortfall;
    QVector<double> found, optimal, violations;
    for (const ConcurrentMetrics &m : m_results) {
        names.append(m.strategy);
        shortfall.append(m.throughputShortfall);
        found.append(m.feasibleFound);
        optimal.append(m.exactlyOptimal);
        violations.append(m.violations);
    }
    m_shortfallChart->setData(names, shortfall, tr(" %"));
    m_answersChart->setData(names,
                            {{tr("feasible"), chartColors::feasible, found},
                             {tr("exactly optimal"), chartColors::exact, optimal}});
    m_violationChart->setData(names, {{tr("over a budget"), chartColors::violation, violations}});
}

void ConcurrentComparePanel::cancel()
{
    if (!m_running)
        return;
    m_tasks->cancel(QStringLiteral("run"));
    m_job.setStatus(tr("Cancelling after the current repeat…"));
}

void ConcurrentComparePanel::endRun(const QString &message)
{
    m_running = false;
    m_job.end(message);
    updateActions();
}

void ConcurrentComparePanel::showStatus(const QString &message)
{
    m_status->setText(message);
    m_status->setVisible(!message.isEmpty());
}

void ConcurrentComparePanel::updateActions()
{
    const bool canRun = !m_running && m_form->hasPair() && m_form->options().ok();
    m_runAction->setEnabled(canRun);
    m_runButton->setEnabled(canRun);
    m_cancelAction->setEnabled(m_running);
    m_cancelButton->setEnabled(m_running);
    m_exportAction->setEnabled(!m_results.isEmpty());
    m_exportButton->setEnabled(!m_results.isEmpty());
    m_chartsButton->setEnabled(!m_results.isEmpty());
}

QByteArray ConcurrentComparePanel::csv() const
{
    // The keys of `ptwb evaluate-concurrent --json`, then the rest of the box.
    QByteArray out = "strategy,problems,throughput_shortfall_median,throughput_shortfall_q1,"
                     "throughput_shortfall_q3,exactly_optimal,feasible_found,violations,"
                     "profiled_per_problem,profiled,seconds,throughput_shortfall_whisker_low,"
                     "throughput_shortfall_whisker_high\n";
    for (const ConcurrentMetrics &m : m_results) {
        out += m.strategy.toUtf8();
        for (double v : {double(m.problems), m.throughputShortfallMedian, m.throughputShortfall.q1,
                         m.throughputShortfall.q3, m.exactlyOptimal, m.feasibleFound, m.violations,
                         m.profiledPerProblem, m.profiled, m.seconds, m.throughputShortfall.low,
                         m.throughputShortfall.high})
            out += ',' + QByteArray::number(v, 'g', 10);
        out += '\n';
    }
    return out;
}

void ConcurrentComparePanel::chooseExportFile()
{
    if (m_results.isEmpty())
        return;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export the comparison"),
                                     QStringLiteral("concurrent.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void ConcurrentComparePanel::chooseChartsFile()
{
    if (m_results.isEmpty())
        return;
    const auto saved =
        ViewExport::chooseAndWriteCharts(m_charts, QStringLiteral("concurrent.png"), m_status);
    if (saved && saved->ok())
        Q_EMIT exported(saved->path);
    else if (saved)
        Q_EMIT failed(saved->error);
}

bool ConcurrentComparePanel::exportCharts(const QString &path, QString *error) const
{
    return ViewExport::writeImage(m_charts, path, error);
}

void ConcurrentComparePanel::exportCsv(const QString &path)
{
    ViewExport::writeFileInBackground(
        *m_tasks, path, [text = csv()] { return text; },
        [this](const ViewExport::SavedFile &saved) {
            showStatus(saved.ok() ? tr("Saved %1").arg(saved.path) : saved.error);
            if (saved.ok())
                Q_EMIT exported(saved.path);
            else
                Q_EMIT failed(saved.error);
        });
}

}  // namespace ptwb::ui
