#include "sweeppanel.h"

#include "backgroundtasks.h"
#include "chartstyle.h"
#include "modes/devicespec.h"
#include "plaintext.h"
#include "store/store.h"
#include "sweepprogresstext.h"
#include "sweepresultsmodel.h"
#include "sweepsetup.h"
#include "workloads.h"
#include "workloadsdialog.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QTableView>
#include <QTime>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace ptwb::ui {

namespace {

// The mode-set choices, in combo order, and how each becomes SweepPlan's text.
enum ModeKind { AllModes, RandomModes, GridModes, AdaptiveModes };

constexpr int kDefaultModeCount = 50;
constexpr double kPowerSpanSeconds = 4;  // the power plot's first span; it doubles as needed
constexpr int kDefinitionRole = Qt::UserRole;  // the chooser's item is a saved definition
constexpr int kMinibatchesRole = Qt::UserRole + 1;  // its skip + keep
constexpr int kDefaultStopAfter = 3;

// The device's name from its table ("Jetson AGX Orin").
QString deviceKindLabel(const QString &kind)
{
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(kind);
    return spec ? spec->name() : kind;
}

}  // namespace

void SweepPanel::LivePlot::clear(double xMax)
{
    points.clear();
    series->clear();
    x->setRange(0, xMax);
    x->applyNiceNumbers();
    y->setRange(0, 1);
    yMin = yMax = 0;
}

void SweepPanel::LivePlot::append(const QVector<QPointF> &more)
{
    if (more.isEmpty())
        return;
    const bool first = points.isEmpty();
    points.append(QList<QPointF>(more.cbegin(), more.cend()));
    // Samples may arrive slightly out of order: the line goes left to right.
    auto byX = [](const QPointF &a, const QPointF &b) { return a.x() < b.x(); };
    if (!std::is_sorted(points.cbegin(), points.cend(), byX))
        std::stable_sort(points.begin(), points.end(), byX);
    // One update of the line: append() would signal (and redraw) once per point.
    series->replace(points);
    double xMax = 0;
    if (first)
        yMin = yMax = more.front().y();
    for (const QPointF &p : more) {
        xMax = std::max(xMax, p.x());
        yMin = std::min(yMin, p.y());
        yMax = std::max(yMax, p.y());
    }
    // The axes only grow, in steps, so most updates redraw the line alone (a new range lays
    // the whole chart out again).
    if (xMax > x->max()) {
        x->setRange(0, std::max(2 * x->max(), xMax));
        x->applyNiceNumbers();
    }
    if (first || yMin < y->min() || yMax > y->max()) {
        const double pad = std::max(0.15 * (yMax - yMin), 0.05 * std::abs(yMax) + 1e-6);
        y->setRange(std::max(0.0, yMin - pad), yMax + pad);
        y->applyNiceNumbers();  // round ticks
    }
}

SweepPanel::SweepPanel(QWidget *parent)
    : QWidget(parent)
    , m_session(new SweepSession(this))
    , m_tasks(new BackgroundTasks(this))
    , m_results(new SweepResultsModel(this))
{
    m_deviceLabel = plainLabel(tr("No device"), this);
    QFont big = m_deviceLabel->font();
    big.setBold(true);
    m_deviceLabel->setFont(big);
    m_simulatedBadge = new QLabel(tr("Simulated device"), this);
    m_simulatedBadge->setToolTip(tr("Sweeps of the simulated Jetson are stored under a device "
                                    "name of their own, never mixed with a real device's"));
    m_simulatedBadge->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; color: #664d03; border: 1px solid #e0c36a; "
                       "border-radius: 4px; padding: 2px 8px; font-weight: bold; }"));
    m_simulatedBadge->setObjectName(QStringLiteral("simulatedBadge"));
    m_simulatedBadge->setVisible(false);
    auto *header = new QHBoxLayout;
    header->addWidget(m_deviceLabel);
    header->addWidget(m_simulatedBadge);
    header->addStretch(1);

    auto *top = new QHBoxLayout;
    top->addWidget(buildPlanBox(), 0);
    top->addWidget(buildProgressBox(), 1);

    m_timePlot =
        buildPlot(tr("Minibatch time of the mode being measured"), tr("minibatch"), tr("ms"));
    m_powerPlot = buildPlot(tr("Power of the mode being measured"), tr("device time (s)"), tr("W"));
    m_timePlot.series->setColor(chartColors::time);
    m_powerPlot.series->setColor(chartColors::power);
    auto *plots = new QHBoxLayout;
    plots->addWidget(m_timePlot.view);
    plots->addWidget(m_powerPlot.view);

    m_table = new QTableView(this);
    m_table->setModel(m_results);
    m_table->setToolTip(tr("The modes of this sweep as they are measured"));
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    // Fixed widths that fit the longest mode and the headers: resizing to contents would look
    // at every row on every new one.
    m_table->setWordWrap(false);
    QHeaderView *columns = m_table->horizontalHeader();
    columns->setSectionResizeMode(QHeaderView::Interactive);
    columns->setStretchLastSection(true);
    const QFontMetrics metrics(m_table->font());
    const int padding = 3 * metrics.averageCharWidth();
    columns->resizeSection(
        SweepResultsModel::ModeColumn,
        metrics.horizontalAdvance(QStringLiteral("12c/2.20C/1.30G/3.20M (repeat 10)")) + padding);
    for (int column : {int(SweepResultsModel::TimeColumn), int(SweepResultsModel::PowerColumn),
                       int(SweepResultsModel::EnergyColumn)}) {
        columns->resizeSection(
            column,
            metrics.horizontalAdvance(m_results->headerData(column, Qt::Horizontal).toString()) +
                2 * padding);
    }
    auto *tableLabel = new QLabel(tr("Measured modes"), this);
    tableLabel->setFont(big);
    // A failed mode's reason and the workload's last output lines (device text: plain only).
    m_failureDetails = new QPlainTextEdit(this);
    m_failureDetails->setObjectName(QStringLiteral("failureDetails"));
    m_failureDetails->setReadOnly(true);
    m_failureDetails->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_failureDetails->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_failureDetails->setToolTip(tr("Why the selected mode failed and the last lines its workload "
                                    "printed (out: stdout, err: stderr)"));
    m_failureDetails->setMaximumHeight(150);
    m_failureDetails->setVisible(false);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SweepPanel::showFailureDetails);
    connect(m_results, &QAbstractItemModel::modelReset, this, &SweepPanel::showFailureDetails);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addLayout(top);
    layout->addLayout(plots, 2);
    layout->addWidget(tableLabel);
    layout->addWidget(m_table, 3);
    layout->addWidget(m_failureDetails, 1);

    connect(m_session, &SweepSession::started, this, &SweepPanel::onStarted);
    connect(m_session, &SweepSession::progress, this, &SweepPanel::onProgress);
    connect(m_session, &SweepSession::live, this, &SweepPanel::onLive);
    connect(m_session, &SweepSession::itemRecorded, this, &SweepPanel::onItemRecorded);
    connect(m_session, &SweepSession::message, this,
            [this](const QString &text) { showMessage(text); });
    connect(m_session, &SweepSession::stopped, this, &SweepPanel::onStopped);

    // Panel-wide keys: they act only while the Sweep view has the focus.
    for (const QKeySequence &keys :
         {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)}) {
        auto *shortcut =
            new QShortcut(keys, this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
        connect(shortcut, &QShortcut::activated, this, [this] {
            if (m_start->isEnabled())
                start();
        });
    }
    auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), this, nullptr, nullptr,
                                 Qt::WidgetWithChildrenShortcut);
    connect(escape, &QShortcut::activated, this, [this] {
        if (m_cancel->isEnabled())
            cancel();
    });

    applyChartTheme();
    updateModeSetControls();
    setState(State::Idle);
}

SweepPanel::~SweepPanel() = default;

QWidget *SweepPanel::buildPlanBox()
{
    auto *box = new QGroupBox(tr("Plan"), this);
    m_workload = new QComboBox(box);
    m_workload->setObjectName(QStringLiteral("workloadCombo"));
    // A width of its own, not its items': a new list never lays the view (and its charts) out
    // again.
    m_workload->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_workload->setMinimumContentsLength(16);
    for (const QString &name : SweepSetup::builtinWorkloads()) {
        m_workload->addItem(name);
        m_workload->setItemData(m_workload->count() - 1, tr("A built-in workload of the agent"),
                                Qt::ToolTipRole);
    }
    m_workload->setToolTip(tr("The training workload the device runs in every mode: a built-in, "
                              "or one of your own saved in Workloads…"));
    connect(m_workload, &QComboBox::currentIndexChanged, this, &SweepPanel::updateWorkloadControls);
    m_workloadsButton = new QPushButton(tr("Workloads…"), box);
    m_workloadsButton->setObjectName(QStringLiteral("workloadsButton"));
    m_workloadsButton->setToolTip(tr("Add, edit and test your own training scripts as workloads "
                                     "(Ctrl+Shift+W)"));
    connect(m_workloadsButton, &QPushButton::clicked, this, &SweepPanel::openWorkloads);
    auto *workloadRow = new QHBoxLayout;
    workloadRow->setContentsMargins(0, 0, 0, 0);
    workloadRow->addWidget(m_workload, 1);
    workloadRow->addWidget(m_workloadsButton);

    m_modeKind = new QComboBox(box);
    m_modeKind->addItem(tr("All modes"));
    m_modeKind->addItem(tr("Random"));
    m_modeKind->addItem(tr("Grid"));
    m_modeKind->addItem(tr("Adaptive (active learning)"));
    m_modeKind->setCurrentIndex(RandomModes);
    m_modeKind->setToolTip(tr("Which modes to measure: every mode of the device, N drawn at "
                              "random, a sub-grid, or up to N chosen by active learning "
                              "(20 random first, then the most informative ones)"));
    m_modeCount = new QSpinBox(box);
    m_modeCount->setRange(1, 100000);
    m_modeCount->setValue(kDefaultModeCount);
    m_modeCount->setSuffix(tr(" modes"));
    m_modeCount->setToolTip(tr("How many modes to measure"));
    m_gridSpec = new QLineEdit(box);
    m_gridSpec->setPlaceholderText(QStringLiteral("cores=even;cpu=every:2:2"));
    m_gridSpec->setToolTip(tr("A sub-grid: per knob (cores, cpu, gpu, mem) a list, even/odd, or "
                              "every:STEP[:START], separated by ';'"));
    auto *modes = new QHBoxLayout;
    modes->setContentsMargins(0, 0, 0, 0);
    modes->addWidget(m_modeKind);
    modes->addWidget(m_modeCount);
    modes->addWidget(m_gridSpec, 1);
    connect(m_modeKind, &QComboBox::currentIndexChanged, this, &SweepPanel::updateModeSetControls);

    m_minibatches = new QSpinBox(box);
    m_minibatches->setObjectName(QStringLiteral("minibatchesSpin"));
    m_minibatches->setRange(2, 100000);
    m_minibatches->setValue(40);
    m_minibatches->setToolTip(tr("Minibatches trained in each mode; the first (warm-up) and "
                                 "those before power settles are not counted"));
    m_repeats = new QSpinBox(box);
    m_repeats->setRange(1, 100);
    m_repeats->setValue(1);
    m_repeats->setToolTip(tr("Measurements of each mode"));
    m_batchSizes = new QLineEdit(box);
    m_batchSizes->setObjectName(QStringLiteral("batchSizesEdit"));
    m_batchSizes->setPlaceholderText(tr("the workload's own (16)"));
    m_batchSizes->setToolTip(tr("Minibatch sizes to profile each mode at, e.g. 1,4,16,32,64: the "
                                "mode is set once, then each size is measured in this order. "
                                "Empty: the workload's own batch only"));
    m_stopAfter = new QSpinBox(box);
    m_stopAfter->setObjectName(QStringLiteral("stopAfterSpin"));
    m_stopAfter->setRange(0, 1000);
    m_stopAfter->setValue(kDefaultStopAfter);
    m_stopAfter->setSpecialValueText(tr("never"));
    m_stopAfter->setSuffix(tr(" failed modes in a row"));
    m_stopAfter->setToolTip(tr("Pause the sweep after this many consecutive failed modes (a "
                               "script that cannot start fails in every mode); Resume goes on. "
                               "0: never stop, every mode is tried"));
    m_inference = new QCheckBox(tr("Inference (minibatches of requests)"), box);
    m_inference->setObjectName(QStringLiteral("inferenceCheck"));
    m_inference->setToolTip(tr("Profile the workload's inference instead of its training. It "
                               "is stored as its own workload, NAME%1: a workload holds "
                               "training or inference measurements, never both")
                                .arg(QLatin1String(workflows::kInferenceSuffix)));

    m_start = new QPushButton(tr("Start"), box);
    m_start->setToolTip(tr("Store the plan and start measuring its modes on the device "
                           "(Ctrl+Return)"));
    m_pause = new QPushButton(tr("Pause"), box);
    m_pause->setToolTip(tr("Stop measuring now; the mode being measured stays pending and "
                           "Resume goes on from there"));
    m_resume = new QPushButton(tr("Resume"), box);
    m_resume->setToolTip(tr("Go on with the paused sweep: only its pending modes are measured"));
    m_cancel = new QPushButton(tr("Cancel"), box);
    m_cancel->setToolTip(tr("End the sweep for good (Esc); what was measured stays in the store"));
    m_start->setObjectName(QStringLiteral("startButton"));
    m_pause->setObjectName(QStringLiteral("pauseButton"));
    m_resume->setObjectName(QStringLiteral("resumeButton"));
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    connect(m_start, &QPushButton::clicked, this, &SweepPanel::start);
    connect(m_pause, &QPushButton::clicked, this, &SweepPanel::pause);
    connect(m_resume, &QPushButton::clicked, this, &SweepPanel::resume);
    connect(m_cancel, &QPushButton::clicked, this, &SweepPanel::cancel);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_pause);
    buttons->addWidget(m_resume);
    buttons->addWidget(m_cancel);

    auto *form = new QFormLayout(box);
    form->addRow(tr("Workload:"), workloadRow);
    form->addRow(tr("Modes:"), modes);
    form->addRow(tr("Minibatches per mode:"), m_minibatches);
    form->addRow(tr("Repeats:"), m_repeats);
    form->addRow(tr("Batch sizes:"), m_batchSizes);
    form->addRow(QString(), m_inference);
    form->addRow(tr("Stop after:"), m_stopAfter);
    form->addRow(buttons);
    return box;
}

QWidget *SweepPanel::buildProgressBox()
{
    auto *box = new QGroupBox(tr("Progress"), this);
    m_sweepLabel = new QLabel(tr("No sweep yet: plan one and press Start"), box);
    m_sweepLabel->setWordWrap(true);
    // What a sweep says comes partly from the device (a workload's last stderr line, the reason
    // a mode was refused): plain text, never markup a device could use to make the window load
    // a file.
    m_sweepLabel->setTextFormat(Qt::PlainText);
    m_progressBar = new QProgressBar(box);
    m_progressBar->setRange(0, 1);
    m_progressBar->setValue(0);
    m_progressBar->setToolTip(tr("Modes measured or failed, of all planned"));
    m_progressLabel = plainLabel(box);
    m_progressLabel->setToolTip(tr("Time left comes from the workload's model when the store has "
                                   "one, else from the pace so far"));
    m_currentLabel = new QLabel(box);
    m_currentLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_currentLabel->setTextFormat(Qt::PlainText);
    m_messageLabel = new QLabel(box);
    m_messageLabel->setTextFormat(Qt::PlainText);
    m_messageLabel->setObjectName(QStringLiteral("messageLabel"));
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_messageLabel->setToolTip(tr("The sweep's latest message"));
    auto *layout = new QVBoxLayout(box);
    layout->addWidget(m_sweepLabel);
    layout->addWidget(m_progressBar);
    layout->addWidget(m_progressLabel);
    layout->addWidget(m_currentLabel);
    layout->addWidget(m_messageLabel);
    layout->addStretch(1);
    return box;
}

SweepPanel::LivePlot SweepPanel::buildPlot(const QString &title, const QString &xTitle,
                                           const QString &yTitle)
{
    LivePlot plot;
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->hide();
    plot.series = new QLineSeries(chart);
    chart->addSeries(plot.series);
    plot.x = new QValueAxis(chart);
    plot.x->setTitleText(xTitle);
    plot.x->setLabelFormat(QStringLiteral("%.4g"));
    plot.x->setTickCount(5);
    plot.y = new QValueAxis(chart);
    plot.y->setTitleText(yTitle);
    plot.y->setLabelFormat(QStringLiteral("%.4g"));
    plot.y->setTickCount(5);
    chart->addAxis(plot.x, Qt::AlignBottom);
    chart->addAxis(plot.y, Qt::AlignLeft);
    plot.series->attachAxis(plot.x);
    plot.series->attachAxis(plot.y);
    plot.view = new QChartView(chart);
    plot.view->setRenderHint(QPainter::Antialiasing);
    plot.view->setMinimumHeight(180);
    plot.view->setToolTip(title);
    plot.clear();
    return plot;
}

void SweepPanel::applyChartTheme()
{
    // Light or dark after the palette, transparent so the charts sit in the window.
    const QPalette palette = this->palette();
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    QFont title = font();
    title.setBold(true);
    for (LivePlot *plot : {&m_timePlot, &m_powerPlot}) {
        QChart *chart = plot->view->chart();
        const QColor color = plot->series->color();
        chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
        chart->setBackgroundVisible(false);
        chart->setMargins(QMargins(4, 4, 4, 4));
        chart->setAnimationOptions(QChart::NoAnimation);
        chart->setTitleFont(title);
        chart->setTitleBrush(palette.color(QPalette::WindowText));
        QPen pen(color);
        pen.setWidthF(2);
        plot->series->setPen(pen);  // the theme would pick its own
    }
}

void SweepPanel::setDatabasePath(const QString &path)
{
    m_databasePath = path;
    m_session->setDatabasePath(path);
    setState(m_state);
    reloadWorkloads();
}

void SweepPanel::setDevice(const workflows::DeviceEndpoint &device)
{
    m_session->setDevice(device);
    m_hasTarget = device.isValid();
    m_deviceLabel->setText(
        m_hasTarget ? tr("Device: %1 (%2)").arg(device.storeName, deviceKindLabel(device.kind))
                    : tr("No device"));
    m_simulatedBadge->setVisible(m_hasTarget && device.simulated);
    setState(m_state);
    if (device.kind != m_deviceKind) {
        m_deviceKind = device.kind;
        reloadWorkloads();
    }
}

QStringList SweepPanel::workloadNames() const
{
    QStringList names;
    for (int i = 0; i < m_workload->count(); ++i)
        names.append(m_workload->itemText(i));
    return names;
}

void SweepPanel::reloadWorkloads()
{
    // Once per turn of the event loop (a new database and device come together), and only while
    // planning: mid-sweep the chooser is disabled, and the sweep has the CPU.
    if (m_databasePath.isEmpty() || m_reloadQueued)
        return;
    m_reloadQueued = true;
    QTimer::singleShot(0, this, [this] {
        m_reloadQueued = false;
        if (m_state != State::Idle && m_state != State::Paused) {
            m_reloadPending = true;
            return;
        }
        loadWorkloads();
    });
}

void SweepPanel::loadWorkloads()
{
    m_tasks->run(
        QStringLiteral("workloads"),
        [path = m_databasePath, kind = m_deviceKind](const TaskContext &) {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return Expected<QVector<workflows::WorkloadEntry>>(
                    passOn<Expected<QVector<workflows::WorkloadEntry>>>(store));
            return workflows::listWorkloads(**store, kind);
        },
        [this](const Expected<QVector<workflows::WorkloadEntry>> &entries) {
            if (!entries) {
                showMessage(tr("Workloads: %1").arg(entries.error()), true);
                return;
            }
            const QString wanted =
                m_wantedWorkload.isEmpty() ? m_workload->currentText() : m_wantedWorkload;
            struct Item
            {
                QString name;
                bool definition;
                int minibatches;
                QString tip;
                bool operator==(const Item &o) const
                {
                    return name == o.name && definition == o.definition &&
                        minibatches == o.minibatches && tip == o.tip;
                }
            };
            QVector<Item> items;
            for (const workflows::WorkloadEntry &entry : *entries) {
                // A built-in's inference name is not a choice here: the Inference box is.
                if (entry.builtin && !SweepSetup::builtinWorkloads().contains(entry.name))
                    continue;
                if (entry.builtin || !entry.definition)
                    items.append({entry.name, false, 0, tr("A built-in workload of the agent")});
                else
                    items.append({entry.name, true, entry.definition->minibatchesPerMode(),
                                  tr("Your workload: %1").arg(entry.definition->commandLine())});
            }
            QVector<Item> shown;
            for (int i = 0; i < m_workload->count(); ++i)
                shown.append({m_workload->itemText(i),
                              m_workload->itemData(i, kDefinitionRole).toBool(),
                              m_workload->itemData(i, kMinibatchesRole).toInt(),
                              m_workload->itemData(i, Qt::ToolTipRole).toString()});
            m_workload->blockSignals(true);
            if (items != shown) {  // most reloads find the same list: leave the combo alone
                m_workload->clear();
                for (const Item &item : std::as_const(items)) {
                    m_workload->addItem(item.name);
                    const int i = m_workload->count() - 1;
                    m_workload->setItemData(i, plainTip(item.tip), Qt::ToolTipRole);
                    if (item.definition) {
                        m_workload->setItemData(i, true, kDefinitionRole);
                        m_workload->setItemData(i, item.minibatches, kMinibatchesRole);
                    }
                }
            }
            const int index = m_workload->findText(wanted);
            m_workload->setCurrentIndex(std::max(0, index));
            m_workload->blockSignals(false);
            if (index >= 0)
                m_wantedWorkload.clear();
            m_workloadsLoaded = true;
            updateWorkloadControls();
            Q_EMIT workloadListLoaded();
        });
}

QDialog *SweepPanel::openWorkloads()
{
    if (m_databasePath.isEmpty()) {
        showMessage(tr("Open a database first: workloads are saved in it"), true);
        return nullptr;
    }
    auto *dialog = new WorkloadsDialog(m_databasePath, m_session->device(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    connect(dialog, &WorkloadsDialog::workloadsChanged, this, &SweepPanel::reloadWorkloads);
    if (m_workload->currentData(kDefinitionRole).toBool())
        connect(
            dialog, &WorkloadsDialog::loaded, dialog,
            [dialog, name = m_workload->currentText()] { dialog->selectWorkload(name); },
            Qt::SingleShotConnection);
    dialog->open();
    return dialog;
}

void SweepPanel::updateWorkloadControls()
{
    const bool definition = m_workload->currentData(kDefinitionRole).toBool();
    const bool planning = m_state == State::Idle || m_state == State::Paused;
    if (definition) {
        // The definition says how many minibatches each mode runs: skip + keep.
        m_minibatches->setValue(m_workload->currentData(kMinibatchesRole).toInt());
        m_minibatches->setToolTip(tr("Set by the workload: the minibatches it skips plus those "
                                     "it keeps (edit them in Workloads…)"));
        m_inference->setChecked(false);
        m_inference->setToolTip(tr("Your own workloads are profiled as the script runs: training, "
                                   "or whatever it does"));
    } else {
        m_minibatches->setToolTip(tr("Minibatches trained in each mode; the first (warm-up) and "
                                     "those before power settles are not counted"));
        m_inference->setToolTip(tr("Profile the workload's inference instead of its training. It "
                                   "is stored as its own workload, NAME%1: a workload holds "
                                   "training or inference measurements, never both")
                                    .arg(QLatin1String(workflows::kInferenceSuffix)));
    }
    m_minibatches->setEnabled(planning && !definition);
    m_inference->setEnabled(planning && !definition);
}

QString SweepPanel::failureDetailsText() const
{
    return m_failureDetails->isHidden() ? QString() : m_failureDetails->toPlainText();
}

void SweepPanel::showFailureDetails()
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    const QString text = current.isValid() ? m_results->failureDetails(current.row()) : QString();
    m_failureDetails->setPlainText(text);
    m_failureDetails->setVisible(!text.isEmpty());
}

bool SweepPanel::isRunning() const
{
    return m_session->isRunning();
}

qint64 SweepPanel::sweepId() const
{
    return m_session->sweepId();
}

workflows::SweepRequest SweepPanel::request() const
{
    workflows::SweepRequest r;
    r.inference = m_inference->isChecked();
    r.workload = r.inference ? workflows::inferenceWorkloadName(m_workload->currentText())
                             : m_workload->currentText();
    // start() refuses a list that does not parse, with its error, before it gets here
    if (const Expected<QVector<int>> sizes = SweepPlan::parseBatchSizes(m_batchSizes->text()))
        r.batchSizes = *sizes;
    const QString n = QString::number(m_modeCount->value());
    switch (m_modeKind->currentIndex()) {
    case AllModes:
        r.modeSet = QStringLiteral("all");
        break;
    case GridModes:
        r.modeSet = QStringLiteral("grid:") + m_gridSpec->text().trimmed();
        break;
    case AdaptiveModes:
        r.modeSet = QStringLiteral("als:") + n;
        break;
    default:
        r.modeSet = QStringLiteral("random:") + n;
        break;
    }
    r.minibatches = m_minibatches->value();
    r.repeats = m_repeats->value();
    r.stopAfterFailures = m_stopAfter->value();
    r.seed = 0;  // a new draw for every sweep
    return r;
}

void SweepPanel::setRequest(const workflows::SweepRequest &r)
{
    m_inference->setChecked(r.inference);
    const QString builtin = r.inference ? workflows::builtinOfInference(r.workload) : r.workload;
    if (const int i = m_workload->findText(builtin); i >= 0)
        m_workload->setCurrentIndex(i);
    else
        m_wantedWorkload = builtin;  // a definition: chosen once the list arrives
    QStringList sizes;
    for (int size : r.batchSizes)
        sizes.append(QString::number(size));
    m_batchSizes->setText(sizes.join(QLatin1Char(',')));
    const QString set = r.modeSet;
    const QString arg = set.section(QLatin1Char(':'), 1);
    if (set == QLatin1String("all")) {
        m_modeKind->setCurrentIndex(AllModes);
    } else if (set.startsWith(QLatin1String("grid:"))) {
        m_modeKind->setCurrentIndex(GridModes);
        m_gridSpec->setText(arg);
    } else if (set.startsWith(QLatin1String("als:")) || set.startsWith(QLatin1String("random:"))) {
        m_modeKind->setCurrentIndex(set.startsWith(QLatin1String("als:")) ? AdaptiveModes
                                                                          : RandomModes);
        m_modeCount->setValue(arg.toInt());
    }
    m_minibatches->setValue(r.minibatches);
    m_repeats->setValue(r.repeats);
    m_stopAfter->setValue(r.stopAfterFailures);
    updateWorkloadControls();
}

void SweepPanel::updateModeSetControls()
{
    const int kind = m_modeKind->currentIndex();
    m_modeCount->setVisible(kind == RandomModes || kind == AdaptiveModes);
    m_gridSpec->setVisible(kind == GridModes);
}

void SweepPanel::start()
{
    if (!m_start->isEnabled())
        return;
    if (const Expected<QVector<int>> sizes = SweepPlan::parseBatchSizes(m_batchSizes->text());
        !sizes) {
        showMessage(tr("Batch sizes: %1").arg(sizes.error()), true);
        m_batchSizes->setFocus();
        return;
    }
    m_results->clear();
    m_timePlot.clear();
    m_powerPlot.clear();
    m_liveMode.clear();
    m_sweepLabel->setText(tr("Storing the plan…"));
    m_progressLabel->clear();
    m_currentLabel->clear();
    showMessage(QString());
    setState(State::Running);
    m_session->start(request());
}

void SweepPanel::pause()
{
    if (m_state != State::Running)
        return;
    setState(State::Pausing);
    m_currentLabel->setText(tr("Pausing: stopping the mode being measured…"));
    m_session->pause();
}

void SweepPanel::resume()
{
    if (m_state != State::Paused || m_session->sweepId() <= 0)
        return;
    setState(State::Running);
    m_session->setStopAfterFailures(m_stopAfter->value());
    m_session->resume(m_session->sweepId());
}

void SweepPanel::cancel()
{
    if (m_state != State::Running && m_state != State::Pausing && m_state != State::Paused)
        return;
    setState(State::Stopping);
    m_currentLabel->setText(tr("Cancelling…"));
    m_session->cancel();
}

void SweepPanel::onStarted(const SweepRecord &record)
{
    m_results->setRecord(record);
    const int finished =
        record.count(SweepItem::State::Done) + record.count(SweepItem::State::Failed);
    m_progressBar->setRange(0, int(std::max<qsizetype>(1, record.items.size())));
    m_progressBar->setValue(finished);
    m_planMinibatches = record.plan.minibatches;
    m_sweepLabel->setText(tr("Sweep %1 · %2 · %3 · %4 minibatches per mode")
                              .arg(record.id)
                              .arg(record.plan.workload, record.plan.modeSet)
                              .arg(record.plan.minibatches));
    m_currentLabel->setText(tr("Connecting to %1…").arg(record.plan.target));
}

void SweepPanel::onProgress(const SweepProgress &p)
{
    m_progressBar->setRange(0, std::max(1, p.total));
    m_progressBar->setValue(p.done + p.failed);
    m_progressLabel->setText(sweepProgressText(p));
    if (m_state != State::Running)
        return;  // "Pausing…", "Cancelling…" stay until the run has stopped
    Expected<PowerMode> mode = PowerMode::parse(p.currentMode);
    const QString what = p.currentBatch > 0
        ? tr("%1 at batch %2").arg(mode ? mode->toShort() : QString()).arg(p.currentBatch)
        : (mode ? mode->toShort() : QString());
    m_currentLabel->setText(
        mode ? tr("Measuring %1 · %2 W now").arg(what).arg(p.livePowerW, 0, 'f', 1)
             : tr("Between modes"));
    m_currentLabel->setToolTip(mode ? plainTip(tr("%1 on %2").arg(p.currentMode, p.target))
                                    : QString());
}

void SweepPanel::onLive(const SweepLive &live)
{
    if (live.restarted) {
        m_timePlot.clear(m_planMinibatches);
        m_powerPlot.clear(kPowerSpanSeconds);
        m_liveMode = live.mode.toShort();
        m_timePlot.view->chart()->setTitle(tr("Minibatch time · %1").arg(m_liveMode));
        m_powerPlot.view->chart()->setTitle(tr("Power · %1").arg(m_liveMode));
    }
    m_timePlot.append(live.minibatchMs);
    m_powerPlot.append(live.powerW);
}

void SweepPanel::onItemRecorded(const SweepItem &item, const Measurement &measurement)
{
    m_results->append(item, measurement);
    m_table->scrollToBottom();
    if (item.state == SweepItem::State::Done)
        Q_EMIT measurementStored();
}

void SweepPanel::onStopped(qint64 sweepId, SweepState state, const QString &summary)
{
    showMessage(summary, state == SweepState::Failed);
    if (state == SweepState::Paused || state == SweepState::Interrupted) {
        setState(State::Paused);
        m_currentLabel->setText(state == SweepState::Paused
                                    ? tr("Paused: Resume goes on with the pending modes")
                                    : tr("Interrupted: Resume goes on with the pending modes"));
        return;
    }
    setState(State::Idle);
    if (state == SweepState::Done)
        m_currentLabel->setText(tr("Done: every planned mode is measured or failed"));
    else if (state == SweepState::Cancelled)
        m_currentLabel->setText(tr("Cancelled"));
    else
        m_currentLabel->clear();
    if (state != SweepState::Failed || sweepId > 0)
        Q_EMIT sweepFinished(sweepId);
}

void SweepPanel::setState(State state)
{
    m_state = state;
    const bool ready = m_hasTarget && !m_databasePath.isEmpty();
    const bool planning = state == State::Idle || state == State::Paused;
    m_start->setEnabled(planning && ready);
    m_pause->setEnabled(state == State::Running);
    m_resume->setEnabled(state == State::Paused && ready);
    m_cancel->setEnabled(state == State::Running || state == State::Pausing ||
                         state == State::Paused);
    if (planning && m_reloadPending) {
        m_reloadPending = false;
        reloadWorkloads();
    }
    for (QWidget *control :
         {static_cast<QWidget *>(m_workload), static_cast<QWidget *>(m_modeKind),
          static_cast<QWidget *>(m_modeCount), static_cast<QWidget *>(m_gridSpec),
          static_cast<QWidget *>(m_minibatches), static_cast<QWidget *>(m_repeats),
          static_cast<QWidget *>(m_batchSizes), static_cast<QWidget *>(m_inference),
          static_cast<QWidget *>(m_stopAfter), static_cast<QWidget *>(m_workloadsButton)})
        control->setEnabled(planning);
    updateWorkloadControls();
    if (!ready && planning && !m_hasTarget)
        m_start->setToolTip(tr("No device to sweep: choose one in Devices"));
    else
        m_start->setToolTip(tr("Store the plan and start measuring its modes on the device "
                               "(Ctrl+Return)"));
}

void SweepPanel::showMessage(const QString &text, bool error)
{
    // Stamped: a message stays until the next one, and says how old it is.
    m_messageLabel->setText(
        text.isEmpty() ? QString()
                       : QStringLiteral("%1  %2").arg(
                             QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), text));
    QPalette palette = m_messageLabel->parentWidget()->palette();
    if (error)
        palette.setColor(QPalette::WindowText, QColor(0xc6, 0x28, 0x28));
    else
        palette.setColor(QPalette::WindowText, palette.color(QPalette::PlaceholderText));
    m_messageLabel->setPalette(palette);
}

}  // namespace ptwb::ui
