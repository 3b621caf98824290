#include "comparepanel.h"

#include "batchcompare.h"
#include "chartstyle.h"
#include "concurrentcompare.h"
#include "jobprogress.h"
#include "modelworkflow.h"
#include "optimize/storedevaluation.h"
#include "plaintext.h"
#include "store/store.h"
#include "strategybarchart.h"
#include "strategyboxchart.h"
#include "viewactions.h"
#include "viewexport.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

// What each strategy does, for its tooltip (docs/optimization.md has the details).
QString describe(const QString &strategy)
{
    static const QHash<QString, QString> text {
        {QStringLiteral("optimal"),
         QObject::tr("The fastest measured mode within the budget: "
                     "the ground truth, profiling every mode")},
        {QStringLiteral("maxn"), QObject::tr("Always MAXN, every knob at its highest")},
        {QStringLiteral("nvp"), QObject::tr("The fastest stock nvpmodel preset within the budget")},
        {QStringLiteral("rnd"), QObject::tr("The fastest of N randomly profiled modes")},
        {QStringLiteral("nn"), QObject::tr("A neural network trained on N random profiled modes")},
        {QStringLiteral("pt"),
         QObject::tr("PowerTrain: the reference model transferred with N "
                     "profiled modes")},
        {QStringLiteral("safe"), QObject::tr("PowerTrain with a safety margin on power")},
        {QStringLiteral("bs"),
         QObject::tr("Fulcrum's binary search: halves one knob at a time, per budget")},
        {QStringLiteral("gmd"),
         QObject::tr("Fulcrum's gradient descent: follows the steepest time per watt, at most "
                     "15 modes per budget")},
        {QStringLiteral("pts"),
         QObject::tr("PowerTrain as a search: profiles its transferred model's pick until the "
                     "pick is measured, at most 15 modes per budget (slow: a transfer per "
                     "profile)")},
        {QStringLiteral("als"),
         QObject::tr("Active learning (Fulcrum): profile where the model "
                     "is unsure, up to 100 modes")},
    };
    return text.value(strategy);
}

const QStringList kColumns {QObject::tr("Strategy"),         QObject::tr("Profiled"),
                            QObject::tr("Per budget"),       QObject::tr("Time penalty %"),
                            QObject::tr("Energy penalty %"), QObject::tr("Excess W"),
                            QObject::tr("Above budget %"),   QObject::tr("Above +1 W %"),
                            QObject::tr("Solutions"),        QObject::tr("s / repeat")};

}  // namespace

ComparePanel::ComparePanel(QWidget *parent)
    : QWidget(parent)
    , m_tasks(new BackgroundTasks(this))
    , m_stack(new QStackedWidget(this))
    , m_problem(new QComboBox(this))
    , m_concurrent(new ConcurrentComparePanel(this))
    , m_batch(new BatchComparePanel(this))
    , m_reference(new QComboBox(this))
    , m_target(new QComboBox(this))
    , m_budgetFrom(new QDoubleSpinBox(this))
    , m_budgetTo(new QDoubleSpinBox(this))
    , m_budgetStep(new QDoubleSpinBox(this))
    , m_repeats(new QSpinBox(this))
    , m_samples(new QSpinBox(this))
    , m_seed(new QSpinBox(this))
    , m_strategies(new QListWidget(this))
    , m_runButton(new QPushButton(tr("&Run evaluation"), this))
    , m_cancelButton(new QPushButton(tr("Cancel"), this))
    , m_exportButton(new QPushButton(tr("Export CSV…"), this))
    , m_chartsButton(new QPushButton(tr("Export charts…"), this))
    , m_progress(new QProgressBar(this))
    , m_status(plainLabel(this))
    , m_penaltyChart(new StrategyBoxChart(tr("Time penalty against the optimal pick"),
                                          tr("% slower"), chartColors::time, this))
    , m_excessChart(new StrategyBoxChart(tr("Power above the budget"), tr("W over the budget"),
                                         chartColors::power, this))
    , m_violationChart(new StrategyBarChart(tr("Budget violations"), tr("% of solutions"), this))
    , m_charts(new QWidget(this))
    , m_table(new QTableWidget(0, int(kColumns.size()), this))
    , m_runAction(new QAction(tr("Run evaluation"), this))
    , m_cancelAction(new QAction(tr("Cancel evaluation"), this))
    , m_exportAction(new QAction(tr("Export CSV"), this))
    , m_job(m_progress, m_cancelButton, m_status)
{
    m_reference->setToolTip(tr("Reference workload: pt and safe start from a model of it (the "
                               "newest stored reference model, else one trained for the run)"));
    m_target->setToolTip(tr("Target workload: its measured modes are the candidates, and "
                            "their observed values judge every pick"));
    for (QDoubleSpinBox *box : {m_budgetFrom, m_budgetTo, m_budgetStep}) {
        box->setDecimals(1);
        box->setSuffix(tr(" W"));
        box->setRange(0.5, 500);
    }
    m_budgetFrom->setValue(17);
    m_budgetTo->setValue(50);
    m_budgetStep->setValue(1);
    m_budgetFrom->setToolTip(tr("Lowest power budget"));
    m_budgetTo->setToolTip(tr("Highest power budget"));
    m_budgetStep->setToolTip(tr("Step between budgets"));
    m_repeats->setRange(1, 100);
    m_repeats->setValue(10);
    m_repeats->setToolTip(tr("Repeats with fresh random draws (the same draws for every "
                             "strategy in a repeat)"));
    m_samples->setRange(3, 1000);
    m_samples->setValue(50);
    m_samples->setToolTip(tr("Modes profiled by rnd, nn, pt and safe"));
    m_seed->setRange(0, 1000000);
    m_seed->setToolTip(tr("Seed of the draws: the same seed gives the same numbers"));
    for (const QString &name : Strategy::names()) {
        auto *item = new QListWidgetItem(name, m_strategies);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        item->setToolTip(describe(name));
    }
    m_strategies->setToolTip(tr("Strategies to compare"));
    m_strategies->setMaximumHeight(m_strategies->sizeHintForRow(0) * 5 + 8);
    m_strategies->setMaximumWidth(m_strategies->sizeHintForColumn(0) * 3 + 24);
    m_strategies->setFlow(QListView::LeftToRight);
    m_strategies->setWrapping(true);
    m_strategies->setResizeMode(QListView::Adjust);
    m_strategies->setSpacing(2);

    addViewAction(this, m_runAction, m_runButton, QKeySequence(Qt::CTRL | Qt::Key_Return),
                  tr("Evaluate the checked strategies over the budget range (Ctrl+Enter)"),
                  &ComparePanel::run);
    addViewAction(this, m_cancelAction, m_cancelButton, QKeySequence(Qt::Key_Escape),
                  tr("Stop the evaluation; finished strategies stay (Esc)"), &ComparePanel::cancel);
    addViewAction(this, m_exportAction, m_exportButton, QKeySequence(tr("Ctrl+Shift+E")),
                  tr("Save the table as CSV (Ctrl+Shift+E)"), &ComparePanel::chooseExportFile);
    m_chartsButton->setToolTip(
        tr("Save the three charts as one PNG or SVG picture (also File ▸ Export chart, "
           "Ctrl+Shift+S)"));
    connect(m_chartsButton, &QPushButton::clicked, this, &ComparePanel::chooseChartsFile);

    m_table->setHorizontalHeaderLabels(kColumns);
    m_table->horizontalHeaderItem(1)->setToolTip(
        tr("Distinct modes profiled per repeat, over every budget"));
    m_table->horizontalHeaderItem(2)->setToolTip(
        tr("Distinct modes that answered one budget (median): what a strategy profiled up front "
           "plus what it profiled for that budget"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(60);
    m_table->setToolTip(tr("Every metric per strategy; see docs/optimization.md"));
    m_penaltyChart->setToolTip(tr("How much slower the pick is than the fastest mode within the "
                                  "budget, over every budget and repeat (negative: faster, by "
                                  "going over the budget). Box: quartiles and median; whiskers: "
                                  "the farthest picks within 1.5 box heights"));
    m_excessChart->setToolTip(tr("How many watts the pick's observed power is above the budget "
                                 "(0 when within it), over every budget and repeat. Box: "
                                 "quartiles and median; whiskers: the farthest picks within 1.5 "
                                 "box heights"));
    m_violationChart->setToolTip(tr("Share of picks whose observed power is above the budget, "
                                    "and above the budget by more than 1 W"));

    // Controls on the left, results on the right.
    auto *controls = new QGroupBox(tr("Evaluation"), this);
    auto *form = new QFormLayout(controls);
    form->addRow(tr("Re&ference"), m_reference);
    form->addRow(tr("&Target"), m_target);
    auto *budgets = new QHBoxLayout;
    budgets->addWidget(m_budgetFrom);
    budgets->addWidget(new QLabel(tr("to"), controls));
    budgets->addWidget(m_budgetTo);
    auto *budgetLabel = new QLabel(tr("&Budgets"), controls);
    budgetLabel->setBuddy(m_budgetFrom);
    form->addRow(budgetLabel, budgets);
    form->addRow(tr("Budget ste&p"), m_budgetStep);
    form->addRow(tr("R&epeats"), m_repeats);
    form->addRow(tr("&Samples"), m_samples);
    form->addRow(tr("S&eed"), m_seed);
    form->addRow(tr("Strate&gies"), m_strategies);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_cancelButton);
    buttons->addStretch(1);
    form->addRow(buttons);
    auto *exports = new QHBoxLayout;
    exports->addStretch(1);
    exports->addWidget(m_exportButton);
    exports->addWidget(m_chartsButton);
    form->addRow(exports);
    form->addRow(m_progress);
    form->addRow(m_status);

    auto *charts = new QHBoxLayout(m_charts);
    charts->setContentsMargins(0, 0, 0, 0);
    charts->addWidget(m_penaltyChart, 4);
    charts->addWidget(m_excessChart, 4);
    charts->addWidget(m_violationChart, 3);
    // Two bar sets side by side leave no room for value labels: hover shows them.
    m_violationChart->setValueLabelsVisible(false);
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
    splitter->setSizes({330, 1100});
    auto *empty = new QLabel(tr("<h3>No measurements of this device yet</h3><p>Import "
                                "measurements or run a sweep first: the evaluation judges "
                                "strategies on a workload's measured modes.</p>"),
                             this);
    empty->setAlignment(Qt::AlignCenter);
    empty->setWordWrap(true);
    m_stack->addWidget(empty);
    m_stack->addWidget(splitter);

    // The problem compared: the training one above, or the concurrent one on a page of its own.
    m_problem->addItem(tr("Training under a power budget"));
    m_problem->addItem(tr("Concurrent training + inference"));
    m_problem->addItem(tr("Batch size and mode (time to accuracy)"));
    m_problem->setToolTip(
        tr("Training alone: the fastest mode within a power budget (`ptwb "
           "evaluate`). Concurrent: the mode and inference batch size that "
           "train the most while inference requests meet a latency budget and "
           "the device a power budget (`ptwb evaluate-concurrent`). Batch size: the mode and "
           "training batch size fastest to accuracy under a power cap (`ptwb "
           "evaluate-batch`)"));
    auto *problemLabel = new QLabel(tr("Pro&blem"), this);
    problemLabel->setBuddy(m_problem);
    auto *problemRow = new QHBoxLayout;
    problemRow->addWidget(problemLabel);
    problemRow->addWidget(m_problem);
    problemRow->addStretch(1);
    m_stack->addWidget(m_concurrent);
    m_stack->addWidget(m_batch);
    connect(m_problem, &QComboBox::currentIndexChanged, this, [this] {
        showPage();
        updateActions();
    });
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(problemRow);
    layout->addWidget(m_stack, 1);

    endRun(QString());
    updateCharts();
}

ComparePanel::~ComparePanel() = default;  // m_tasks cancels a running evaluation

void ComparePanel::setDatabasePath(const QString &path)
{
    m_path = path;
    m_concurrent->setDatabasePath(path);
    m_batch->setDatabasePath(path);
    reload();
}

void ComparePanel::setDeviceKind(const QString &kind)
{
    m_kind = kind;
    reload();
}

void ComparePanel::reload()
{
    if (m_path.isEmpty()) {  // nothing to list until there is a store
        m_tasks->drop(QStringLiteral("lists"));
        m_summaries.clear();
        showPage();
        return;
    }
    m_tasks->run(
        QStringLiteral("lists"),
        [path = m_path](const TaskContext &) { return workflows::storedWorkloads(path); },
        [this](const Expected<QVector<WorkloadSummary>> &summaries) {
            if (!summaries)
                Q_EMIT failed(summaries.error());
            showWorkloads(summaries ? *summaries : QVector<WorkloadSummary>());
        });
}

void ComparePanel::showWorkloads(const QVector<WorkloadSummary> &summaries)
{
    m_summaries.clear();
    QVector<WorkloadSummary> ofKind;
    for (const WorkloadSummary &s : summaries) {
        if (m_kind.isEmpty() || s.deviceKind == m_kind)
            ofKind.append(s);
        if ((m_kind.isEmpty() || s.deviceKind == m_kind) && s.isTrainable())
            m_summaries.append(s);
    }
    m_concurrent->setWorkloads(ofKind);
    m_batch->setWorkloads(ofKind);
    const QString reference = m_reference->currentText();
    const QString target = m_target->currentText();
    m_reference->clear();
    m_target->clear();
    for (const WorkloadSummary &s : m_summaries) {
        const QString label = tr("%1 (%2 modes)").arg(s.workload).arg(s.distinctModes);
        m_reference->addItem(label, QStringList {s.device, s.workload});
        m_target->addItem(label, QStringList {s.device, s.workload});
    }
    // A sensible first choice: two different workloads, the larger one as the reference.
    if (m_summaries.size() > 1 && reference.isEmpty() && target.isEmpty())
        m_target->setCurrentIndex(1);
    if (!reference.isEmpty())
        m_reference->setCurrentText(reference);
    if (!target.isEmpty())
        m_target->setCurrentText(target);
    showPage();
    updateActions();
    Q_EMIT listsLoaded();
}

static int findWorkload(const QComboBox *box, const QString &workload)
{
    for (int i = 0; i < box->count(); ++i) {
        if (box->itemData(i).toStringList().value(1) == workload)
            return i;
    }
    return -1;
}

bool ComparePanel::setReferenceWorkload(const QString &workload)
{
    const int row = findWorkload(m_reference, workload);
    if (row >= 0)
        m_reference->setCurrentIndex(row);
    return row >= 0;
}

bool ComparePanel::setTargetWorkload(const QString &workload)
{
    const int row = findWorkload(m_target, workload);
    if (row >= 0)
        m_target->setCurrentIndex(row);
    return row >= 0;
}

void ComparePanel::setBudgets(double fromW, double toW, double stepW)
{
    m_budgetFrom->setValue(fromW);
    m_budgetTo->setValue(toW);
    m_budgetStep->setValue(stepW);
}

void ComparePanel::showPage()
{
    // Pages: what to do without measurements, the training evaluation, the concurrent one, the
    // batch size one.
    if (problem() == Problem::Concurrent)
        m_stack->setCurrentWidget(m_concurrent);
    else if (problem() == Problem::Batch)
        m_stack->setCurrentWidget(m_batch);
    else
        m_stack->setCurrentIndex(m_summaries.isEmpty() ? 0 : 1);
}

ComparePanel::Problem ComparePanel::problem() const
{
    return Problem(m_problem->currentIndex());
}

void ComparePanel::setProblem(Problem problem)
{
    m_problem->setCurrentIndex(int(problem));
}

void ComparePanel::setRepeats(int repeats)
{
    m_repeats->setValue(repeats);
}

void ComparePanel::setSamples(int samples)
{
    m_samples->setValue(samples);
}

void ComparePanel::setSeed(quint64 seed)
{
    m_seed->setValue(int(seed));
}

void ComparePanel::setStrategies(const QStringList &strategies)
{
    for (int i = 0; i < m_strategies->count(); ++i) {
        QListWidgetItem *item = m_strategies->item(i);
        item->setCheckState(strategies.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
}

EvaluationOptions ComparePanel::options(QString *error) const
{
    EvaluationOptions options;
    const Expected<QVector<double>> budgets =
        EvaluationOptions::parseBudgets(QStringLiteral("%1:%2:%3")
                                            .arg(m_budgetFrom->value())
                                            .arg(m_budgetTo->value())
                                            .arg(m_budgetStep->value()));
    if (budgets)
        options.budgetsW = *budgets;
    else if (error)
        *error = tr("The budget range goes from a lower to a higher budget.");
    options.samples = m_samples->value();
    options.repeats = m_repeats->value();
    options.seed = quint64(m_seed->value());
    options.strategies.clear();
    for (int i = 0; i < m_strategies->count(); ++i) {
        if (m_strategies->item(i)->checkState() == Qt::Checked)
            options.strategies.append(m_strategies->item(i)->text());
    }
    if (options.strategies.isEmpty() && error && error->isEmpty())
        *error = tr("Check at least one strategy.");
    return options;
}

void ComparePanel::run()
{
    if (m_running || m_target->count() == 0)
        return;
    QString error;
    const EvaluationOptions evaluation = options(&error);
    if (!error.isEmpty()) {
        m_status->setText(error);
        m_status->setVisible(true);
        return;
    }
    const QStringList target = m_target->currentData().toStringList();
    const QStringList reference = m_reference->currentData().toStringList();
    m_results.clear();
    m_table->setRowCount(0);
    updateCharts();
    m_running = true;
    m_job.begin(tr("Evaluating %1 on %2 over %3 budgets, %4 repeats…")
                    .arg(evaluation.strategies.join(QStringLiteral(", ")), target.value(1))
                    .arg(evaluation.budgetsW.size())
                    .arg(evaluation.repeats));
    updateActions();

    StoredEvaluation::Params params;
    params.databasePath = m_path;
    params.targetDevice = target.value(0);
    params.targetWorkload = target.value(1);
    params.referenceDevice = reference.value(0);
    params.referenceWorkload = reference.value(1);
    params.options = evaluation;
    // Reports reach the panel in order, and only for the run that is still current.
    QPointer<ComparePanel> self(this);
    m_tasks->run(
        QStringLiteral("run"),
        [params, self](const TaskContext &context) {
            const auto post = [context, self](std::function<void(ComparePanel &)> report) {
                context.post([self, report] {
                    if (self)
                        report(*self);
                });
            };
            StoredEvaluation::Callbacks callbacks;
            const auto cancel = context.cancelFlag();
            callbacks.cancelled = [cancel] { return cancel->load(); };
            callbacks.progress = [post](int done, int total) {
                post([done, total](ComparePanel &panel) { panel.onProgress(done, total); });
            };
            callbacks.result = [post](const StrategyMetrics &m) {
                post([m](ComparePanel &panel) { panel.addResult(m); });
            };
            callbacks.log = [post](const QString &line) {
                post([line](ComparePanel &panel) { panel.m_job.setStatus(line); });
            };
            Expected<QVector<StrategyMetrics>> results = StoredEvaluation(params).run(callbacks);
            return std::make_pair(results, context.cancelled());
        },
        [this](const std::pair<Expected<QVector<StrategyMetrics>>, bool> &outcome) {
            const auto &[results, wasCancelled] = outcome;
            if (wasCancelled) {
                endRun(tr("Cancelled: %n strategies finished.", nullptr, int(m_results.size())));
                Q_EMIT cancelled();
            } else if (!results) {
                endRun(tr("The evaluation failed: %1").arg(results.error()));
                Q_EMIT failed(results.error());
            } else {
                endRun(tr("%n strategies evaluated in %1 s.", nullptr, int(results->size()))
                           .arg(m_job.elapsedSeconds(), 0, 'f', 1));
                Q_EMIT finished();
            }
        });
}

void ComparePanel::onProgress(int done, int total)
{
    const double fraction = total > 0 ? double(done) / total : 0;
    // Strategies differ in cost, so the estimate firms up as the run goes.
    m_job.update(fraction, tr("%1 of %2 repeats").arg(done).arg(total));
}

void ComparePanel::addResult(const StrategyMetrics &m)
{
    m_results.append(m);
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    const QVector<QPair<double, int>> numbers {{m.profiled, 1},
                                               {m.profiledPerBudget, 1},
                                               {m.timePenaltyMedian, 2},
                                               {m.energyPenaltyMedian, 2},
                                               {m.excessPowerArea, 3},
                                               {m.al, 1},
                                               {m.al1, 1},
                                               {double(m.solutions), 0},
                                               {m.seconds, 3}};
    auto *name = new QTableWidgetItem(m.strategy);
    name->setToolTip(describe(m.strategy));
    m_table->setItem(row, 0, name);
    for (int i = 0; i < numbers.size(); ++i) {
        auto *item =
            new QTableWidgetItem(QLocale().toString(numbers[i].first, 'f', numbers[i].second));
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, i + 1, item);
    }
    updateCharts();
}

void ComparePanel::updateCharts()
{
    QStringList names;
    QVector<Distribution> penalty;
    QVector<Distribution> excess;
    QVector<double> above;
    QVector<double> aboveOne;
    for (const StrategyMetrics &m : m_results) {
        names.append(m.strategy);
        penalty.append(m.timePenalty);
        excess.append(m.excessPower);
        above.append(m.al);
        aboveOne.append(m.al1);
    }
    m_penaltyChart->setData(names, penalty, tr(" %"));
    m_excessChart->setData(names, excess, tr(" W"));
    m_violationChart->setData(names,
                              {{tr("above budget"), chartColors::violation, above},
                               {tr("above budget + 1 W"), chartColors::violationOne, aboveOne}});
}

void ComparePanel::cancel()
{
    if (!m_running)
        return;
    m_tasks->cancel(QStringLiteral("run"));
    m_job.setStatus(tr("Cancelling after the current repeat…"));
}

void ComparePanel::endRun(const QString &message)
{
    m_running = false;
    m_job.end(message);
    updateActions();
}

void ComparePanel::updateActions()
{
    // The concurrent and batch pages have their own actions under the same shortcuts.
    const bool training = m_problem->currentIndex() == int(Problem::Training);
    const bool canRun = training && !m_running && m_target->count() > 0;
    m_runAction->setEnabled(canRun);
    m_runButton->setEnabled(canRun);
    m_cancelAction->setEnabled(training && m_running);
    m_cancelButton->setEnabled(m_running);
    m_exportAction->setEnabled(training && !m_results.isEmpty());
    m_exportButton->setEnabled(!m_results.isEmpty());
    m_chartsButton->setEnabled(!m_results.isEmpty());
}

QByteArray ComparePanel::csv() const
{
    // The keys of `ptwb evaluate --json`.
    QByteArray out = "strategy,profiled,profiled_per_budget,time_penalty_median,"
                     "energy_penalty_median,"
                     "excess_power_area,al,al1,solutions,seconds";
    for (const auto &field : StrategyMetrics().distributionFields())
        out += ',' + field.first.toUtf8();
    out += '\n';
    for (const StrategyMetrics &m : m_results) {
        out += m.strategy.toUtf8();
        for (double v :
             {m.profiled, m.profiledPerBudget, m.timePenaltyMedian, m.energyPenaltyMedian,
              m.excessPowerArea, m.al, m.al1, double(m.solutions), m.seconds})
            out += ',' + QByteArray::number(v, 'g', 10);
        for (const auto &field : m.distributionFields())
            out += ',' + QByteArray::number(field.second, 'g', 10);
        out += '\n';
    }
    return out;
}

void ComparePanel::chooseExportFile()
{
    if (m_results.isEmpty())
        return;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export the comparison"),
                                     QStringLiteral("strategies.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void ComparePanel::chooseChartsFile()
{
    if (m_results.isEmpty())
        return;
    const auto saved =
        ViewExport::chooseAndWriteCharts(m_charts, QStringLiteral("strategies.png"), m_status);
    if (saved && saved->ok())
        Q_EMIT exported(saved->path);
    else if (saved)
        Q_EMIT failed(saved->error);
}

bool ComparePanel::exportCharts(const QString &path, QString *error) const
{
    if (problem() == Problem::Concurrent)
        return m_concurrent->exportCharts(path, error);
    if (problem() == Problem::Batch)
        return m_batch->exportCharts(path, error);
    return ViewExport::writeImage(m_charts, path, error);
}

void ComparePanel::exportCsv(const QString &path)
{
    ViewExport::writeFileInBackground(
        *m_tasks, path, [text = csv()] { return text; },
        [this](const ViewExport::SavedFile &saved) {
            if (saved.ok())
                Q_EMIT exported(saved.path);
            else
                Q_EMIT failed(tr("Could not write %1").arg(saved.error));
        });
}

}  // namespace ptwb::ui
