#include "batchcompare.h"

#include "batchcompareform.h"
#include "chartstyle.h"
#include "store/convergence.h"
#include "store/store.h"
#include "strategybarchart.h"
#include "viewactions.h"
#include "viewexport.h"

#include <QAction>
#include <QChart>
#include <QFileDialog>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

const QStringList kColumns {
    QObject::tr("Strategy"),   QObject::tr("Penalty % median [q1 q3]"), QObject::tr("Found %"),
    QObject::tr("Over cap %"), QObject::tr("Profiled / batch"),         QObject::tr("Problems")};

const QStringList kColumnTips {
    {},
    QObject::tr("How much longer (or more energy) to accuracy than the oracle's pick, on the "
                "measurements and the true samples: median and quartiles over every cap and "
                "repeat"),
    QObject::tr("Share of the problems (caps × repeats with a feasible oracle answer) the "
                "strategy answered"),
    QObject::tr("Share of its answers whose measured peak power is above the cap"),
    QObject::tr("Modes it profiled per batch size (all of them, for the oracle)"),
    QObject::tr("Caps × repeats with a feasible oracle answer")};

QString number(double value, int decimals)
{
    return QLocale().toString(value, 'f', decimals);
}

}  // namespace

BatchComparePanel::BatchComparePanel(QWidget *parent)
    : QWidget(parent)
    , m_tasks(new BackgroundTasks(this))
    , m_stack(new QStackedWidget(this))
    , m_form(new BatchCompareForm(this))
    , m_runButton(new QPushButton(tr("&Run evaluation"), this))
    , m_cancelButton(new QPushButton(tr("Cancel"), this))
    , m_exportButton(new QPushButton(tr("Export CSV…"), this))
    , m_chartsButton(new QPushButton(tr("Export charts…"), this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_penaltyChart(new StrategyBarChart(tr("Above the oracle's time to accuracy"),
                                          tr("% above the oracle"), this))
    , m_answersChart(new StrategyBarChart(tr("Answers"), tr("%"), this))
    , m_charts(new QWidget(this))
    , m_table(new QTableWidget(0, int(kColumns.size()), this))
    , m_runAction(new QAction(tr("Run evaluation"), this))
    , m_cancelAction(new QAction(tr("Cancel evaluation"), this))
    , m_exportAction(new QAction(tr("Export CSV"), this))
    , m_job(m_progress, m_cancelButton, m_status)
{
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);  // errors name files and workloads: shown as they are
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    addViewAction(this, m_runAction, m_runButton, QKeySequence(Qt::CTRL | Qt::Key_Return),
                  tr("Evaluate the checked strategies on every cap (Ctrl+Enter)"),
                  &BatchComparePanel::run);
    addViewAction(this, m_cancelAction, m_cancelButton, QKeySequence(Qt::Key_Escape),
                  tr("Stop the evaluation after the current repeat (Esc)"),
                  &BatchComparePanel::cancel);
    addViewAction(this, m_exportAction, m_exportButton, QKeySequence(tr("Ctrl+Shift+E")),
                  tr("Save the table as CSV (Ctrl+Shift+E)"), &BatchComparePanel::chooseExportFile);
    m_chartsButton->setToolTip(tr("Save the charts as one PNG or SVG picture"));
    connect(m_chartsButton, &QPushButton::clicked, this, &BatchComparePanel::chooseChartsFile);
    connect(m_form, &BatchCompareForm::changed, this, &BatchComparePanel::updateActions);

    m_table->setHorizontalHeaderLabels(kColumns);
    for (int i = 1; i < kColumns.size(); ++i)
        m_table->horizontalHeaderItem(i)->setToolTip(kColumnTips.value(i));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->setToolTip(tr("Every metric per strategy, as `ptwb evaluate --objective "
                           "time-to-accuracy` prints them"));
    m_penaltyChart->setToolTip(tr("The median of how much longer (or more energy) to accuracy "
                                  "than the oracle, with the lower and upper quartile (the "
                                  "numbers are in the table below)"));
    m_answersChart->setToolTip(tr("Share of the problems answered, and of the answers whose "
                                  "measured peak is above the cap"));

    auto *controls = new QGroupBox(tr("Batch size evaluation"), this);
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
    charts->addWidget(m_penaltyChart, 3);
    charts->addWidget(m_answersChart, 2);
    auto *results = new QWidget(this);
    auto *resultsLayout = new QVBoxLayout(results);
    resultsLayout->setContentsMargins(0, 0, 0, 0);
    resultsLayout->addWidget(m_summary);
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
        tr("<h3>No workload measured at several batch sizes yet</h3><p>The batch size "
           "evaluation needs a training workload measured at every mode of two or more batch "
           "sizes, and its samples-to-accuracy relation (<tt>ptwb convergence</tt>).</p>"),
        this);
    empty->setAlignment(Qt::AlignCenter);
    empty->setWordWrap(true);
    m_stack->addWidget(empty);
    m_stack->addWidget(splitter);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);

    m_summary->hide();
    endRun(QString());
    updateCharts();
}

BatchComparePanel::~BatchComparePanel() = default;  // m_tasks cancels a running run

void BatchComparePanel::setDatabasePath(const QString &path)
{
    m_path = path;
}

void BatchComparePanel::setWorkloads(const QVector<WorkloadSummary> &summaries)
{
    m_form->setWorkloads(summaries);
    m_stack->setCurrentIndex(m_form->hasWorkload() ? 1 : 0);
    updateActions();
}

void BatchComparePanel::run()
{
    if (m_running || m_path.isEmpty())
        return;
    const Expected<workflows::BatchEvaluationRequest> request = m_form->request();
    if (!request) {
        const QString field = BatchCompareForm::fieldName(request.field());
        showStatus(field.isEmpty() ? request.error() : tr("%1: %2").arg(field, request.error()));
        return;
    }
    m_results.clear();
    m_table->setRowCount(0);
    m_summary->hide();
    updateCharts();
    m_running = true;
    m_objective = request->options.objective;
    m_job.begin(
        tr("Evaluating %1 on %2: %n caps, %3 repeats…", nullptr, int(request->options.capsW.size()))
            .arg(request->options.strategies.join(QStringLiteral(", ")), request->workload)
            .arg(request->options.repeats));
    m_progress->setRange(0, 0);  // the workflow reports no progress: busy until it ends
    updateActions();

    using Outcome = std::pair<Expected<workflows::BatchEvaluationOutcome>, bool>;
    m_tasks->run(
        QStringLiteral("run"),
        [path = m_path, request = *request](const TaskContext &context) {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return Outcome {passOn<Expected<workflows::BatchEvaluationOutcome>>(store), false};
            const auto cancel = context.cancelFlag();
            auto outcome = workflows::runBatchEvaluation(**store, request,
                                                         [cancel] { return cancel->load(); });
            return Outcome {std::move(outcome), context.cancelled()};
        },
        [this](const Outcome &outcome) {
            const auto &[result, wasCancelled] = outcome;
            m_progress->setRange(0, 1000);
            if (wasCancelled) {
                endRun(tr("Cancelled."));
                Q_EMIT cancelled();
            } else if (!result) {
                const QString field = BatchCompareForm::fieldName(result.field());
                const QString message =
                    field.isEmpty() ? result.error() : tr("%1: %2").arg(field, result.error());
                endRun(tr("The evaluation failed: %1").arg(message));
                Q_EMIT failed(message);
            } else {
                showOutcome(*result);
                endRun(tr("%n strategies evaluated in %1.", nullptr, int(result->results.size()))
                           .arg(durationText(m_job.elapsedSeconds())));
                Q_EMIT finished();
            }
        });
}

void BatchComparePanel::showOutcome(const workflows::BatchEvaluationOutcome &outcome)
{
    m_results = outcome.results;
    m_seconds = outcome.seconds;
    m_table->setRowCount(int(m_results.size()));
    for (int row = 0; row < m_results.size(); ++row) {
        const BatchStrategyResult &r = m_results[row];
        const QStringList cells {
            r.strategy,
            tr("%1 [%2 %3]")
                .arg(number(r.penaltyMedian, 2), number(r.penaltyQ1, 2), number(r.penaltyQ3, 2)),
            number(r.found, 1),
            number(r.violations, 1),
            number(r.profiledPerBatch, 0),
            number(r.problems, 0)};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            if (column > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, column, item);
        }
    }
    const bool simulated =
        outcome.samplesProvenance == QLatin1String(ConvergenceProvenance::kSimulated);
    m_summary->setText(
        tr("Samples to accuracy: %1 · %n batch sizes · %2 s", nullptr, outcome.batchSizes)
            .arg(simulated ? tr("SIMULATED (the simulator's convergence model, "
                                "not a measurement)")
                           : outcome.samplesProvenance)
            .arg(number(outcome.seconds, 1)));
    m_summary->setStyleSheet(simulated ? QStringLiteral("color: #c0392b; font-weight: bold")
                                       : QString());
    m_summary->show();
    m_penaltyChart->chart()->setTitle(m_objective == AccuracyObjective::Energy
                                          ? tr("Above the oracle's energy to accuracy")
                                          : tr("Above the oracle's time to accuracy"));
    updateCharts();
}

void BatchComparePanel::updateCharts()
{
    QStringList names;
    QVector<double> q1, median, q3, found, violations;
    for (const BatchStrategyResult &r : m_results) {
        names.append(r.strategy);
        q1.append(r.penaltyQ1);
        median.append(r.penaltyMedian);
        q3.append(r.penaltyQ3);
        found.append(r.found);
        violations.append(r.violations);
    }
    m_penaltyChart->setData(names,
                            {{tr("lower quartile"), chartColors::time.lighter(150), q1},
                             {tr("median"), chartColors::time, median},
                             {tr("upper quartile"), chartColors::time.darker(150), q3}});
    m_answersChart->setData(names,
                            {{tr("found"), chartColors::feasible, found},
                             {tr("over the cap"), chartColors::violation, violations}});
    m_answersChart->setValueLabelsVisible(false);
    // Three labels per strategy overlap where the penalties are small (ours, a few %): the
    // table below has every number.
    m_penaltyChart->setValueLabelsVisible(false);
}

void BatchComparePanel::cancel()
{
    if (!m_running)
        return;
    m_tasks->cancel(QStringLiteral("run"));
    m_job.setStatus(tr("Cancelling after the current repeat…"));
}

void BatchComparePanel::endRun(const QString &message)
{
    m_running = false;
    m_job.end(message);
    updateActions();
}

void BatchComparePanel::showStatus(const QString &message)
{
    m_status->setText(message);
    m_status->setVisible(!message.isEmpty());
}

void BatchComparePanel::updateActions()
{
    const bool canRun = !m_running && m_form->hasWorkload();
    m_runAction->setEnabled(canRun);
    m_runButton->setEnabled(canRun);
    m_cancelAction->setEnabled(m_running);
    m_cancelButton->setEnabled(m_running);
    m_exportAction->setEnabled(!m_results.isEmpty());
    m_exportButton->setEnabled(!m_results.isEmpty());
    m_chartsButton->setEnabled(!m_results.isEmpty());
}

QByteArray BatchComparePanel::csv() const
{
    // The keys of `ptwb evaluate-batch --json`.
    const QByteArray objective = m_objective == AccuracyObjective::Energy ? "energy" : "time";
    QByteArray out = "strategy,penalty_median,penalty_q1,penalty_q3,feasible_found,violations,"
                     "problems,profiled_per_batch,objective,seconds\n";
    for (const BatchStrategyResult &r : m_results) {
        out += r.strategy.toUtf8();
        for (double v : {r.penaltyMedian, r.penaltyQ1, r.penaltyQ3, r.found, r.violations,
                         double(r.problems), r.profiledPerBatch})
            out += ',' + QByteArray::number(v, 'g', 10);
        out += ',' + objective + ',' + QByteArray::number(m_seconds, 'g', 10) + '\n';
    }
    return out;
}

void BatchComparePanel::chooseExportFile()
{
    if (m_results.isEmpty())
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the comparison"), QStringLiteral("batch.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void BatchComparePanel::chooseChartsFile()
{
    if (m_results.isEmpty())
        return;
    const auto saved =
        ViewExport::chooseAndWriteCharts(m_charts, QStringLiteral("batch.png"), m_status);
    if (saved && saved->ok())
        Q_EMIT exported(saved->path);
    else if (saved)
        Q_EMIT failed(saved->error);
}

bool BatchComparePanel::exportCharts(const QString &path, QString *error) const
{
    return ViewExport::writeImage(m_charts, path, error);
}

void BatchComparePanel::exportCsv(const QString &path)
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
