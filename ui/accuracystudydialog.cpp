#include "accuracystudydialog.h"

#include "accuracychart.h"
#include "accuracystudy.h"
#include "modelworkflow.h"
#include "modes/devicespec.h"
#include "plaintext.h"
#include "viewactions.h"
#include "viewexport.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>

namespace ptwb::ui {

namespace {

QString deviceName(const QString &kind)
{
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(kind);
    return spec ? spec->name() : kind;
}

int findWorkload(const QComboBox *box, const QString &workload)
{
    for (int i = 0; i < box->count(); ++i) {
        if (box->itemData(i).toStringList().value(1) == workload)
            return i;
    }
    return -1;
}

QString quartilesText(const Quartiles &q)
{
    return QStringLiteral("%1 [%2–%3]")
        .arg(q.median, 0, 'f', 2)
        .arg(q.q1, 0, 'f', 2)
        .arg(q.q3, 0, 'f', 2);
}

}  // namespace

AccuracyStudyDialog::AccuracyStudyDialog(QWidget *parent)
    : QDialog(parent)
    , m_reference(new QComboBox(this))
    , m_target(new QComboBox(this))
    , m_crossDevice(new QLabel(this))
    , m_samples(new QLineEdit(QStringLiteral("10, 20, 30, 50, 100"), this))
    , m_repeats(new QSpinBox(this))
    , m_pt(new QCheckBox(tr("PT (transfer)"), this))
    , m_nn(new QCheckBox(tr("NN (target only)"), this))
    , m_default(new QCheckBox(tr("Project configuration"), this))
    , m_baseline(new QCheckBox(tr("Published configuration"), this))
    , m_runButton(new QPushButton(tr("&Run study"), this))
    , m_cancelButton(new QPushButton(tr("Cancel"), this))
    , m_progress(new QProgressBar(this))
    , m_status(plainLabel(this))
    , m_charts(new QWidget(this))
    , m_timeChart(new AccuracyChart(AccuracyChart::Quantity::Time, m_charts))
    , m_powerChart(new AccuracyChart(AccuracyChart::Quantity::Power, m_charts))
    , m_table(new QTreeWidget(this))
    , m_chartsButton(new QPushButton(tr("Export charts…"), this))
    , m_csvButton(new QPushButton(tr("Export CSV…"), this))
    , m_tasks(new BackgroundTasks(this))
    , m_job(m_progress, m_cancelButton, m_status)
{
    setWindowTitle(tr("Accuracy vs profiled modes"));
    m_reference->setObjectName(QStringLiteral("studyReference"));
    m_target->setObjectName(QStringLiteral("studyTarget"));
    m_samples->setObjectName(QStringLiteral("studySamples"));
    m_repeats->setObjectName(QStringLiteral("studyRepeats"));
    m_reference->setToolTip(tr("Reference workload: PT starts from a model trained on all its "
                               "modes; one of another device kind transfers across devices"));
    m_target->setToolTip(tr("Target workload: its modes are drawn at random as the profiled "
                            "ones, the others validate"));
    m_samples->setToolTip(tr("Numbers of profiled target modes, separated by commas; each must "
                             "leave modes of the target for validation"));
    m_repeats->setRange(1, 100);
    m_repeats->setValue(10);
    m_repeats->setToolTip(tr("Random draws per number of profiled modes; the charts show their "
                             "median and quartiles"));
    m_pt->setToolTip(tr("PowerTrain: the reference model adapted to the profiled modes"));
    m_nn->setToolTip(tr("A network trained from scratch on the profiled modes alone"));
    m_default->setToolTip(tr("This project's regressor configuration (docs/prediction.md)"));
    m_baseline->setToolTip(tr("The configuration published with PowerTrain (dashed lines)"));
    for (QCheckBox *box : {m_pt, m_nn, m_default, m_baseline}) {
        box->setChecked(true);
        connect(box, &QCheckBox::toggled, this, [this] { updateActions(); });
    }
    m_crossDevice->setWordWrap(true);
    m_crossDevice->setTextFormat(Qt::PlainText);
    for (QComboBox *box : {m_reference, m_target}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        connect(box, &QComboBox::currentIndexChanged, this, [this] { updateActions(); });
    }

    auto *runAction = new QAction(tr("Run study"), this);
    addViewAction(this, runAction, m_runButton, QKeySequence(tr("Ctrl+Return")),
                  tr("Run the study on the chosen workloads (Ctrl+Return)"),
                  &AccuracyStudyDialog::run);
    // Esc reaches reject(), which cancels a running study before it closes anything.
    m_cancelButton->setToolTip(tr("Stop the study; the rows done so far stay (Esc)"));
    connect(m_cancelButton, &QPushButton::clicked, this, &AccuracyStudyDialog::cancel);
    m_chartsButton->setToolTip(tr("Save both charts as a PNG image or an SVG drawing"));
    m_csvButton->setToolTip(tr("Save the rows as CSV, the keys of ptwb bench accuracy --json"));
    connect(m_chartsButton, &QPushButton::clicked, this, &AccuracyStudyDialog::chooseChartsFile);
    connect(m_csvButton, &QPushButton::clicked, this, &AccuracyStudyDialog::chooseCsvFile);

    m_table->setHeaderLabels({tr("Method"), tr("Profiled modes"), tr("Repeats"),
                              tr("Time MAPE % median [q1–q3]"), tr("Power MAPE % median [q1–q3]"),
                              tr("s per model")});
    m_table->setRootIsDecorated(false);
    m_table->setAlternatingRowColors(true);
    m_table->setUniformRowHeights(true);
    m_table->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->header()->setStretchLastSection(false);

    auto *form = new QGroupBox(tr("Study"), this);
    auto *grid = new QGridLayout(form);
    grid->addWidget(new QLabel(tr("Reference"), form), 0, 0);
    grid->addWidget(m_reference, 0, 1);
    grid->addWidget(new QLabel(tr("Target"), form), 0, 2);
    grid->addWidget(m_target, 0, 3);
    grid->addWidget(new QLabel(tr("Profiled modes"), form), 1, 0);
    grid->addWidget(m_samples, 1, 1);
    grid->addWidget(new QLabel(tr("Repeats"), form), 1, 2);
    grid->addWidget(m_repeats, 1, 3);
    auto *choices = new QHBoxLayout;
    for (QCheckBox *box : {m_pt, m_nn, m_default, m_baseline})
        choices->addWidget(box);
    choices->addStretch(1);
    grid->addLayout(choices, 2, 0, 1, 4);
    grid->addWidget(m_crossDevice, 3, 0, 1, 4);
    grid->addWidget(m_runButton, 0, 4);
    grid->addWidget(m_progress, 4, 0, 1, 4);
    grid->addWidget(m_cancelButton, 4, 4);
    grid->addWidget(m_status, 5, 0, 1, 5);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);

    auto *chartsLayout = new QHBoxLayout(m_charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->addWidget(m_timeChart);
    chartsLayout->addWidget(m_powerChart);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_charts);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);

    auto *exports = new QHBoxLayout;
    exports->addStretch(1);
    exports->addWidget(m_chartsButton);
    exports->addWidget(m_csvButton);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(form);
    layout->addWidget(splitter, 1);
    layout->addLayout(exports);
    resize(1200, 820);
    m_job.end(QString());
    updateActions();
}

AccuracyStudyDialog::~AccuracyStudyDialog() = default;  // m_tasks cancels a running study

void AccuracyStudyDialog::setDatabasePath(const QString &path)
{
    m_path = path;
    reload();
}

void AccuracyStudyDialog::setDeviceKind(const QString &kind)
{
    m_kind = kind;
}

void AccuracyStudyDialog::reload()
{
    if (m_path.isEmpty())
        return;
    m_tasks->run(
        QStringLiteral("lists"),
        [path = m_path](const TaskContext &) { return workflows::storedWorkloads(path); },
        [this](const Expected<QVector<WorkloadSummary>> &summaries) {
            if (!summaries)
                Q_EMIT failed(summaries.error());
            showWorkloads(summaries ? *summaries : QVector<WorkloadSummary>());
        });
}

void AccuracyStudyDialog::showWorkloads(const QVector<WorkloadSummary> &all)
{
    // The study trains and transfers models: training workloads only.
    QVector<WorkloadSummary> summaries;
    std::copy_if(all.cbegin(), all.cend(), std::back_inserter(summaries),
                 [](const WorkloadSummary &s) { return s.isTrainable(); });
    const QString reference = m_reference->currentData().toStringList().value(1);
    const QString target = m_target->currentData().toStringList().value(1);
    m_reference->clear();
    m_target->clear();
    // Every stored workload, of any device kind: a reference of another kind transfers across.
    int largest = -1;
    for (int i = 0; i < summaries.size(); ++i) {
        const WorkloadSummary &s = summaries[i];
        const QString label =
            tr("%1 — %2 (%3 modes)").arg(s.workload, deviceName(s.deviceKind)).arg(s.distinctModes);
        const QStringList data {s.device, s.workload, s.deviceKind};
        m_reference->addItem(label, data);
        m_target->addItem(label, data);
        if (largest < 0 || s.distinctModes > summaries[largest].distinctModes)
            largest = i;
    }
    // A sensible first choice: the largest workload as the reference, and another one of the
    // view's device kind (else any other) as the target.
    if (reference.isEmpty() && target.isEmpty() && largest >= 0) {
        m_reference->setCurrentIndex(largest);
        int other = -1;
        for (int i = 0; i < summaries.size(); ++i) {
            if (i != largest && (other < 0 || summaries[i].deviceKind == m_kind) &&
                !(other >= 0 && summaries[other].deviceKind == m_kind))
                other = i;
        }
        if (other >= 0)
            m_target->setCurrentIndex(other);
    } else {
        setWorkloads(reference, target);
    }
    updateActions();
    Q_EMIT listsLoaded();
}

bool AccuracyStudyDialog::setWorkloads(const QString &reference, const QString &target)
{
    const int referenceRow = findWorkload(m_reference, reference);
    const int targetRow = findWorkload(m_target, target);
    if (referenceRow >= 0)
        m_reference->setCurrentIndex(referenceRow);
    if (targetRow >= 0)
        m_target->setCurrentIndex(targetRow);
    return referenceRow >= 0 && targetRow >= 0;
}

void AccuracyStudyDialog::setOptions(const AccuracyBenchOptions &options)
{
    QStringList samples;
    for (int n : options.samples)
        samples.append(QString::number(n));
    m_samples->setText(samples.join(QStringLiteral(", ")));
    m_repeats->setValue(options.repeats);
    m_pt->setChecked(options.methods.contains(QStringLiteral("pt")));
    m_nn->setChecked(options.methods.contains(QStringLiteral("nn")));
    m_default->setChecked(options.configs.contains(QStringLiteral("default")));
    m_baseline->setChecked(options.configs.contains(QStringLiteral("baseline")));
}

Expected<AccuracyBenchOptions> AccuracyStudyDialog::readOptions() const
{
    AccuracyBenchOptions options;
    options.samples.clear();
    for (const QString &item : m_samples->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        options.samples.append(item.trimmed().toInt(&ok));
        if (!ok) {
            return Expected<AccuracyBenchOptions>::badInput(
                InputField::Samples,
                tr("'%1' is not a whole number; expected numbers of modes such as 10, 20, 50")
                    .arg(item.trimmed()));
        }
    }
    if (options.samples.isEmpty())
        return Expected<AccuracyBenchOptions>::badInput(
            InputField::Samples, tr("expected at least one number of modes, such as 10, 20, 50"));
    options.repeats = m_repeats->value();
    options.methods.clear();
    if (m_pt->isChecked())
        options.methods.append(QStringLiteral("pt"));
    if (m_nn->isChecked())
        options.methods.append(QStringLiteral("nn"));
    options.configs.clear();
    if (m_default->isChecked())
        options.configs.append(QStringLiteral("default"));
    if (m_baseline->isChecked())
        options.configs.append(QStringLiteral("baseline"));
    options.configOverrides = m_overrides;
    return options;
}

void AccuracyStudyDialog::run()
{
    if (m_running || m_path.isEmpty() || m_reference->count() == 0)
        return;
    const Expected<AccuracyBenchOptions> options = readOptions();
    if (!options) {
        showError(options.error(), options.field());
        return;
    }
    const QStringList reference = m_reference->currentData().toStringList();
    const QStringList target = m_target->currentData().toStringList();
    const workflows::AccuracyStudyRequest request {
        m_path, reference.value(1), reference.value(0), target.value(1), target.value(0), *options};
    m_rows.clear();
    m_table->clear();
    m_timeChart->clear();
    m_powerChart->clear();
    m_running = true;
    updateActions();
    m_job.begin(tr("Loading %1 and %2…").arg(request.referenceWorkload, request.targetWorkload));

    QPointer<AccuracyStudyDialog> self(this);
    m_tasks->run(
        QStringLiteral("study"),
        [request, self](const TaskContext &context) {
            workflows::AccuracyStudyCallbacks callbacks;
            const auto cancel = context.cancelFlag();
            callbacks.cancelled = [cancel] { return cancel->load(); };
            callbacks.progress = [context, self](int done, int total) {
                context.post([self, done, total] {
                    if (self && self->m_running)
                        self->m_job.update(double(done) / total,
                                           tr("%1 of %2 models").arg(done).arg(total));
                });
            };
            callbacks.row = [context, self](const AccuracyRow &row) {
                context.post([self, row] {
                    if (self)
                        self->addRow(row);
                });
            };
            Expected<QVector<AccuracyRow>> rows = workflows::runAccuracyStudy(request, callbacks);
            const bool cancelled = !rows && context.cancelled();
            return std::make_pair(rows, cancelled);
        },
        [this](const std::pair<Expected<QVector<AccuracyRow>>, bool> &outcome) {
            onFinished(outcome.first, outcome.second);
        });
}

void AccuracyStudyDialog::addRow(const AccuracyRow &row)
{
    m_rows.append(row);
    m_timeChart->addRow(row);
    m_powerChart->addRow(row);
    auto *item = new QTreeWidgetItem(m_table);
    item->setText(0, AccuracyChart::methodLabel(row.method));
    item->setText(1, QString::number(row.samples));
    item->setText(2, QString::number(row.repeats));
    item->setText(3, quartilesText(row.timeMape));
    item->setText(4, quartilesText(row.powerMape));
    item->setText(5, QString::number(row.seconds, 'f', 3));
    for (int column = 1; column < m_table->columnCount(); ++column)
        item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
    updateActions();
    Q_EMIT rowAdded(row);
}

void AccuracyStudyDialog::onFinished(const Expected<QVector<AccuracyRow>> &rows, bool cancelled)
{
    m_running = false;
    if (rows) {
        m_job.end(
            tr("Done: %1 rows in %2").arg(rows->size()).arg(durationText(m_job.elapsedSeconds())));
    } else if (cancelled) {
        m_job.end(tr("Cancelled; the %1 complete rows are kept").arg(m_rows.size()));
    } else {
        m_job.end(QString());
        showError(rows.error(), rows.field());
    }
    updateActions();
    Q_EMIT finished(rows.ok());
}

void AccuracyStudyDialog::showError(const QString &message, InputField field)
{
    QWidget *control = nullptr;
    QString name;
    switch (field) {
    case InputField::Reference:
        control = m_reference;
        name = tr("Reference");
        break;
    case InputField::Workload:
        control = m_target;
        name = tr("Target");
        break;
    case InputField::Samples:
        control = m_samples;
        name = tr("Profiled modes");
        break;
    case InputField::Repeats:
        control = m_repeats;
        name = tr("Repeats");
        break;
    case InputField::Methods:
        control = m_pt;
        name = tr("Methods");
        break;
    case InputField::Configs:
        control = m_default;
        name = tr("Configurations");
        break;
    default:
        break;
    }
    const QString text = name.isEmpty() ? message : tr("%1: %2").arg(name, message);
    m_status->setText(text);
    m_status->setVisible(true);
    if (control)
        control->setFocus();
    Q_EMIT failed(text);
}

void AccuracyStudyDialog::cancel()
{
    if (!m_running)
        return;
    m_tasks->cancel(QStringLiteral("study"));
    m_job.setStatus(tr("Cancelling…"));
}

void AccuracyStudyDialog::reject()
{
    if (m_running) {
        cancel();
        return;
    }
    QDialog::reject();
}

void AccuracyStudyDialog::updateActions()
{
    const bool idle = !m_running;
    const bool chosen = m_reference->count() > 0 && m_target->count() > 0 &&
        (m_pt->isChecked() || m_nn->isChecked()) &&
        (m_default->isChecked() || m_baseline->isChecked());
    m_runButton->setEnabled(idle && chosen && !m_path.isEmpty());
    for (QWidget *control : std::initializer_list<QWidget *> {
             m_reference, m_target, m_samples, m_repeats, m_pt, m_nn, m_default, m_baseline})
        control->setEnabled(idle);
    m_chartsButton->setEnabled(!m_rows.isEmpty());
    m_csvButton->setEnabled(!m_rows.isEmpty());
    const QString referenceKind = m_reference->currentData().toStringList().value(2);
    const QString targetKind = m_target->currentData().toStringList().value(2);
    m_crossDevice->setText(referenceKind != targetKind && !referenceKind.isEmpty()
                               ? tr("Across devices: PT transfers from %1 to %2; NN learns on "
                                    "the target alone.")
                                     .arg(deviceName(referenceKind), deviceName(targetKind))
                               : QString());
    m_crossDevice->setVisible(!m_crossDevice->text().isEmpty());
}

void AccuracyStudyDialog::chooseChartsFile()
{
    if (m_rows.isEmpty())
        return;
    const auto saved =
        ViewExport::chooseAndWriteCharts(m_charts, QStringLiteral("accuracy.png"), m_status);
    if (saved && saved->ok())
        Q_EMIT exported(saved->path);
    else if (saved)
        Q_EMIT failed(saved->error);
}

bool AccuracyStudyDialog::exportCharts(const QString &path, QString *error) const
{
    return ViewExport::writeImage(m_charts, path, error);
}

void AccuracyStudyDialog::chooseCsvFile()
{
    if (m_rows.isEmpty())
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the rows"), QStringLiteral("accuracy.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void AccuracyStudyDialog::exportCsv(const QString &path)
{
    ViewExport::writeFileInBackground(
        *m_tasks, path, [rows = m_rows] { return workflows::accuracyRowsCsv(rows); },
        [this](const ViewExport::SavedFile &saved) {
            m_status->setText(saved.ok() ? tr("Saved %1").arg(saved.path) : saved.error);
            m_status->setVisible(true);
            if (saved.ok())
                Q_EMIT exported(saved.path);
            else
                Q_EMIT failed(saved.error);
        });
}

}  // namespace ptwb::ui
