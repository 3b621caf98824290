#include "proxyrundialog.h"

#include "backgroundtasks.h"
#include "devicelist.h"
#include "devicetransports.h"
#include "store/store.h"
#include "sweep/sweepplan.h"
#include "util/printable.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

// A simulated proxy run of some 100,000 samples is minutes of device time; seconds at this clock.
constexpr double kSimulatorSpeed = 200;
const char kGroup[] = "proxyRun/";

QString key(const char *what)
{
    return QLatin1String(kGroup) + QLatin1String(what);
}

}  // namespace

ProxyRunDialog::ProxyRunDialog(const QString &databasePath, const QString &workload,
                               QWidget *parent)
    : QDialog(parent)
    , m_dbPath(databasePath)
    , m_tasks(new BackgroundTasks(this))
    , m_workload(new QLineEdit(workload, this))
    , m_device(new QComboBox(this))
    , m_command(new QLineEdit(this))
    , m_cwd(new QLineEdit(this))
    , m_batchSizes(new QLineEdit(this))
    , m_target(new QDoubleSpinBox(this))
    , m_baseLr(new QDoubleSpinBox(this))
    , m_baseBatch(new QSpinBox(this))
    , m_timeout(new QSpinBox(this))
    , m_scale(new QDoubleSpinBox(this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_result(new QPlainTextEdit(this))
    , m_start(new QPushButton(tr("&Start"), this))
    , m_cancel(new QPushButton(tr("Cancel run"), this))
{
    setObjectName(QStringLiteral("proxyRunDialog"));
    setWindowTitle(tr("Measure samples to accuracy by a proxy run"));
    const QSettings settings;
    m_workload->setObjectName(QStringLiteral("proxyWorkload"));
    m_workload->setToolTip(tr("The workload whose samples-to-accuracy relation this measures "
                              "(it replaces the stored one)"));
    for (const DeviceEntry &entry : DeviceList::load())
        m_device->addItem(entry.name, entry.target);
    m_device->setCurrentIndex(
        std::max(0, m_device->findData(settings.value(key("device")).toString())));
    m_device->setToolTip(tr("Where the proxy training runs: any host of the Devices list (a "
                            "GPU server, the Jetson itself, or the simulated Jetson, whose "
                            "proxy_train.py follows its SIMULATED convergence model)"));
    m_command->setObjectName(QStringLiteral("proxyCommand"));
    m_command->setText(
        settings.value(key("command"), QStringLiteral("python3 proxy_train.py --model resnet18"))
            .toString());
    m_command->setToolTip(tr("<p>The proxy training command, run without a shell (quote words "
                             "with spaces). It is run once per batch size with "
                             "<tt>PTWB_BATCH_SIZE</tt> and <tt>PTWB_LEARNING_RATE</tt> in its "
                             "environment and prints, after each evaluation, a line "
                             "<tt>{\"samples\": N, \"accuracy\": A}</tt> (A a fraction) on "
                             "stdout; it is stopped once A reaches the target.</p>"));
    m_cwd->setText(settings.value(key("cwd")).toString());
    m_cwd->setPlaceholderText(tr("the agent's home"));
    m_cwd->setToolTip(tr("Its working directory on the device: absolute or under ~/"));
    m_batchSizes->setObjectName(QStringLiteral("proxyBatchSizes"));
    m_batchSizes->setText(
        settings.value(key("batchSizes"), QStringLiteral("16,64,256")).toString());
    m_batchSizes->setToolTip(tr("The batch sizes to train with, comma separated (at least two)"));
    m_target->setRange(0.001, 1);
    m_target->setDecimals(3);
    m_target->setSingleStep(0.01);
    m_target->setValue(settings.value(key("target"), 0.6).toDouble());
    m_target->setToolTip(tr("The accuracy each batch size trains to, a fraction (0.9, not 90)"));
    m_baseLr->setRange(0.000001, 1000);
    m_baseLr->setDecimals(6);
    m_baseLr->setValue(settings.value(key("baseLr"), 0.1).toDouble());
    m_baseLr->setToolTip(tr("The learning rate at the base batch; each batch size b trains at "
                            "base lr x b / base batch (the linear scaling rule, Goyal et al.)"));
    m_baseBatch->setRange(1, ConvergenceRelation::kMaxBatch);
    m_baseBatch->setValue(settings.value(key("baseBatch"), 256).toInt());
    m_baseBatch->setToolTip(tr("The batch size the base learning rate is for"));
    m_timeout->setRange(1, 7 * 86400);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setValue(
        settings.value(key("timeout"), workflows::ProxyRunRequest::kDefaultTimeoutSeconds).toInt());
    m_timeout->setToolTip(tr("Device seconds each batch size may train before it counts as not "
                             "reaching the target"));
    m_scale->setRange(0.001, 1e6);
    m_scale->setDecimals(3);
    m_scale->setValue(settings.value(key("scale"), 1.0).toDouble());
    m_scale->setToolTip(tr("Multiply the samples measured by this: the full dataset's size over "
                           "the proxy dataset's (epochs to accuracy carry over); 1 stores them "
                           "as measured"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_status->setObjectName(QStringLiteral("proxyStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_result->setObjectName(QStringLiteral("proxyResult"));
    m_result->setReadOnly(true);
    m_result->setPlaceholderText(tr("Each batch size's outcome appears here."));
    m_start->setToolTip(tr("Train with every batch size on the device, then store what reached "
                           "the target as the workload's relation (provenance proxy)"));
    m_cancel->setToolTip(tr("Stop the training on the device; nothing is stored"));

    auto *form = new QFormLayout;
    form->addRow(tr("&Workload:"), m_workload);
    form->addRow(tr("&Device:"), m_device);
    form->addRow(tr("Co&mmand:"), m_command);
    form->addRow(tr("Working &directory:"), m_cwd);
    form->addRow(tr("&Batch sizes:"), m_batchSizes);
    form->addRow(tr("&Target accuracy:"), m_target);
    form->addRow(tr("Base &learning rate:"), m_baseLr);
    form->addRow(tr("Base b&atch:"), m_baseBatch);
    form->addRow(tr("Time&out per batch size:"), m_timeout);
    form->addRow(tr("Sample &scale:"), m_scale);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_result, 1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &ProxyRunDialog::reject);
    connect(m_start, &QPushButton::clicked, this, &ProxyRunDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &ProxyRunDialog::cancelRun);
    setRunning(false);
    resize(620, 560);
}

ProxyRunDialog::~ProxyRunDialog() = default;

Expected<workflows::ProxyRunRequest> ProxyRunDialog::request() const
{
    using Result = Expected<workflows::ProxyRunRequest>;
    workflows::ProxyRunRequest r;
    r.workload = m_workload->text().trimmed();
    r.argv = QProcess::splitCommand(m_command->text());
    r.workingDirectory = m_cwd->text().trimmed();
    const Expected<QVector<int>> sizes = SweepPlan::parseBatchSizes(m_batchSizes->text());
    if (!sizes)
        return Result::badInput(InputField::BatchSizes, tr("Batch sizes: %1").arg(sizes.error()));
    r.batchSizes = *sizes;
    r.targetAccuracy = m_target->value();
    r.baseLearningRate = m_baseLr->value();
    r.baseBatch = m_baseBatch->value();
    r.timeoutSeconds = m_timeout->value();
    r.sampleScale = m_scale->value();
    if (const Status checked = r.check(); !checked) {
        const QString field = checked.field() == InputField::Workload ? tr("Workload: ")
            : checked.field() == InputField::Run                      ? tr("Command: ")
            : checked.field() == InputField::BatchSizes               ? tr("Batch sizes: ")
                                                                      : QString();
        return Result::failure(field + checked.error(), checked.errorKind(), checked.field());
    }
    return r;
}

void ProxyRunDialog::start()
{
    if (m_run)
        return;
    const Expected<workflows::ProxyRunRequest> req = request();
    if (!req) {
        m_status->setText(req.error());
        return;
    }
    saveSettings();
    workflows::DeviceEndpoint device;
    if (m_deviceOverride) {
        device = *m_deviceOverride;
    } else {
        const QVector<DeviceEntry> entries = DeviceList::load();
        const QString target = m_device->currentData().toString();
        const auto entry = std::find_if(entries.begin(), entries.end(),
                                        [&](const DeviceEntry &e) { return e.target == target; });
        if (entry == entries.end()) {
            m_status->setText(tr("Device: choose a device of the Devices list"));
            return;
        }
        const Expected<workflows::DeviceEndpoint> endpoint =
            deviceEndpoint(*entry, this, kSimulatorSpeed);
        if (!endpoint) {
            m_status->setText(tr("Device: %1").arg(endpoint.error()));
            return;
        }
        device = *endpoint;
    }
    m_running = *req;
    m_result->clear();
    m_progress->setValue(0);
    showProgress(tr("Connecting to %1…").arg(device.name));
    m_run = workflows::startProxyConvergence(device, m_running);
    setRunning(true);
    workflows::ProxyConvergenceRun *run = m_run.get();
    connect(run, &workflows::ProxyConvergenceRun::batchStarted, this,
            [this](int index, int count, int batch, double lr) {
                showProgress(tr("Batch %1 (%2 of %3), learning rate %4: starting")
                                 .arg(batch)
                                 .arg(index + 1)
                                 .arg(count)
                                 .arg(lr, 0, 'g', 6));
            });
    connect(run, &workflows::ProxyConvergenceRun::progressed, this,
            [this](int batch, double samples, double accuracy) {
                showProgress(tr("Batch %1: %2 samples, accuracy %3 of %4")
                                 .arg(batch)
                                 .arg(samples, 0, 'f', 0)
                                 .arg(accuracy, 0, 'f', 3)
                                 .arg(m_running.targetAccuracy));
            });
    connect(run, &workflows::ProxyConvergenceRun::batchFinished, this,
            [this](const workflows::ProxyBatchResult &r) {
                m_result->appendPlainText(
                    r.reached() ? tr("batch %1 (lr %2): reached at %3 samples in %4 device s")
                                      .arg(r.batchSize)
                                      .arg(r.learningRate, 0, 'g', 6)
                                      .arg(*r.samples, 0, 'f', 0)
                                      .arg(r.seconds, 0, 'f', 0)
                                : tr("batch %1 (lr %2): %3: %4")
                                      .arg(r.batchSize)
                                      .arg(r.learningRate, 0, 'g', 6)
                                      .arg(r.statusText(), printable(r.reason, 1000)));
                for (const WorkloadOutputLine &line : r.output)
                    m_result->appendPlainText(
                        QStringLiteral("    %1| %2").arg(line.stream, printable(line.text, 1000)));
            });
    connect(run, &workflows::ProxyConvergenceRun::finished, this, &ProxyRunDialog::onFinished);
}

void ProxyRunDialog::showProgress(const QString &what)
{
    if (!m_run) {
        m_status->setText(what);
        return;
    }
    m_progress->setValue(qRound(m_run->fractionDone() * 1000));
    const std::optional<double> left = m_run->secondsLeft();
    m_status->setText(left ? tr("%1 — about %2 left").arg(what, durationText(*left)) : what);
}

void ProxyRunDialog::onFinished(const Expected<workflows::ProxyRunReport> &report)
{
    // the run deletes itself later: it is still emitting
    m_run.release()->deleteLater();
    setRunning(false);
    if (!report) {
        m_status->setText(
            report.error() == QLatin1String("cancelled")
                ? tr("Cancelled: nothing was stored.")
                : tr("The proxy run failed: %1").arg(printable(report.error(), 1000)));
        Q_EMIT runFinished(false);
        return;
    }
    m_progress->setValue(1000);
    m_status->setText(tr("Storing…"));
    m_tasks->run(
        QStringLiteral("store"),
        [path = m_dbPath, request = m_running,
         done = *report](const TaskContext &) -> Expected<ConvergenceRelation> {
            Expected<std::unique_ptr<Store>> store = Store::open(path);
            if (!store)
                return passOn<Expected<ConvergenceRelation>>(store);
            return workflows::storeProxyRelation(**store, request, done);
        },
        [this](const Expected<ConvergenceRelation> &relation) {
            if (!relation) {
                m_status->setText(relation.error());
                Q_EMIT runFinished(false);
                return;
            }
            m_status->setText(tr("Stored the relation of %1 (provenance proxy): %2 batch sizes "
                                 "reached accuracy %3.")
                                  .arg(relation->workload)
                                  .arg(relation->points.size())
                                  .arg(m_running.targetAccuracy));
            Q_EMIT stored(relation->workload);
            Q_EMIT runFinished(true);
        });
}

void ProxyRunDialog::cancelRun()
{
    if (m_run)
        m_run->cancel();
}

void ProxyRunDialog::reject()
{
    if (m_run)
        m_run->cancel();  // whatever trains on the device stops with the dialog
    QDialog::reject();
}

void ProxyRunDialog::setRunning(bool running)
{
    m_start->setEnabled(!running);
    m_cancel->setEnabled(running);
    for (QWidget *w :
         std::initializer_list<QWidget *> {m_workload, m_device, m_command, m_cwd, m_batchSizes,
                                           m_target, m_baseLr, m_baseBatch, m_timeout, m_scale})
        w->setEnabled(!running);
}

void ProxyRunDialog::saveSettings() const
{
    QSettings settings;
    settings.setValue(key("device"), m_device->currentData());
    settings.setValue(key("command"), m_command->text());
    settings.setValue(key("cwd"), m_cwd->text());
    settings.setValue(key("batchSizes"), m_batchSizes->text());
    settings.setValue(key("target"), m_target->value());
    settings.setValue(key("baseLr"), m_baseLr->value());
    settings.setValue(key("baseBatch"), m_baseBatch->value());
    settings.setValue(key("timeout"), m_timeout->value());
    settings.setValue(key("scale"), m_scale->value());
}

QString ProxyRunDialog::statusText() const
{
    return m_status->text();
}

QString ProxyRunDialog::resultText() const
{
    return m_result->toPlainText();
}

}  // namespace ptwb::ui
