#include "concurrentverifydialog.h"

#include "concurrent/concurrentspace.h"
#include "concurrentverifytable.h"
#include "sweepsetup.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

namespace {

QLabel *plainLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// The built-in workload whose name matches the store's (resnet18 for "resnet18_imagenet", …),
// else the first.
int matchingBuiltin(const QStringList &builtins, const QString &storeName)
{
    const QString name = storeName.toLower();
    for (int i = 0; i < builtins.size(); ++i) {
        QString family = builtins[i];
        family.remove(QRegularExpression(QStringLiteral("[^a-z].*$")));
        if (!family.isEmpty() && name.contains(family))
            return i;
    }
    return 0;
}

QComboBox *builtinCombo(const QString &storeName, QWidget *parent)
{
    auto *combo = new QComboBox(parent);
    const QStringList &builtins = SweepSetup::builtinWorkloads();
    combo->addItems(builtins);
    combo->setCurrentIndex(matchingBuiltin(builtins, storeName));
    combo->setToolTip(QObject::tr(
        "The run uses the device's built-in networks as stand-ins for your workloads: the agent "
        "runs only its own training and inference workloads here."));
    return combo;
}

}  // namespace

ConcurrentVerifyDialog::Pick ConcurrentVerifyDialog::pickOf(const ConcurrentSpace &space, int pair,
                                                            const ConcurrentProblem &problem,
                                                            const QString &trainWorkload,
                                                            const QString &inferWorkload)
{
    const ConcurrentData &data = space.data();
    Pick pick;
    pick.mode = data.modes[data.modeOf(pair)];
    pick.batch = data.batchOf(pair);
    pick.problem = problem;
    const Expected<PairCost> cost = workflows::predictedCost(space, pick.mode, pick.batch);
    pick.predicted = cost ? *cost : space.cost(pair);
    pick.trainWorkload = trainWorkload;
    pick.inferWorkload = inferWorkload;
    return pick;
}

ConcurrentVerifyDialog::ConcurrentVerifyDialog(const workflows::DeviceEndpoint &device,
                                               const Pick &pick, QWidget *parent)
    : QDialog(parent)
    , m_device(device)
    , m_pick(pick)
    , m_train(builtinCombo(pick.trainWorkload, this))
    , m_infer(builtinCombo(pick.inferWorkload, this))
    , m_duration(new QSpinBox(this))
    , m_keep(new QCheckBox(tr("&Keep the mode after a good run"), this))
    , m_phase(plainLabel(QString(), this))
    , m_progress(new QProgressBar(this))
    , m_timeLeft(plainLabel(QString(), this))
    , m_table(new ConcurrentVerifyTable(this))
    , m_outcome(plainLabel(QString(), this))
    , m_start(new QPushButton(tr("&Start"), this))
    , m_cancel(new QPushButton(tr("&Cancel run"), this))
    , m_close(new QPushButton(tr("Close"), this))
{
    setObjectName(QStringLiteral("concurrentVerifyDialog"));
    setWindowTitle(tr("Verify on device"));
    m_train->setObjectName(QStringLiteral("verifyTraining"));
    m_infer->setObjectName(QStringLiteral("verifyInference"));
    m_duration->setObjectName(QStringLiteral("verifyDuration"));
    m_duration->setRange(1, 3000);
    m_duration->setValue(60);
    m_duration->setSuffix(tr(" s"));
    m_duration->setToolTip(tr("Seconds of arriving requests, in the device's time"));
    m_keep->setObjectName(QStringLiteral("verifyKeepMode"));
    m_keep->setToolTip(tr("After a run that meets both budgets, confirm the mode instead of "
                          "putting the previous one back"));
    m_phase->setObjectName(QStringLiteral("verifyPhase"));
    m_outcome->setObjectName(QStringLiteral("verifyOutcome"));
    m_progress->setObjectName(QStringLiteral("verifyProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_timeLeft->setWordWrap(false);
    m_start->setObjectName(QStringLiteral("verifyStart"));
    m_start->setDefault(true);
    m_cancel->setObjectName(QStringLiteral("verifyCancel"));
    m_cancel->setToolTip(tr("Stop the run and put the device back in its previous mode"));

    const ConcurrentProblem &problem = pick.problem;
    const QString what =
        tr("%1 (%2) on %3\nInference batch b = %4 at λ = %5 requests/s (one batch every %6 s)\n"
           "Budgets: latency %7 s, power %8 W")
            .arg(pick.mode.toShort(), pick.mode.toCanonical(), device.name)
            .arg(pick.batch)
            .arg(problem.arrivalRate)
            .arg(pick.batch / problem.arrivalRate, 0, 'f', 3)
            .arg(problem.latencyBudgetS, 0, 'f', 2)
            .arg(problem.powerBudgetW, 0, 'f', 1);
    QLabel *summary = plainLabel(what, this);
    summary->setObjectName(QStringLiteral("verifyPick"));
    QFont bold = summary->font();
    bold.setBold(true);
    summary->setFont(bold);

    auto *form = new QFormLayout;
    form->addRow(tr("&Training on the device:"), m_train);
    form->addRow(tr("&Inference on the device:"), m_infer);
    form->addRow(tr("&Duration:"), m_duration);
    form->addRow(QString(), m_keep);

    auto *progressRow = new QHBoxLayout;
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_timeLeft);

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
    buttons->addButton(m_close, QDialogButtonBox::RejectRole);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(summary);
    layout->addLayout(form);
    layout->addWidget(m_phase);
    layout->addLayout(progressRow);
    layout->addWidget(m_table);
    layout->addWidget(m_outcome);
    layout->addStretch();
    layout->addWidget(buttons);

    connect(m_start, &QPushButton::clicked, this, &ConcurrentVerifyDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &ConcurrentVerifyDialog::cancelRun);
    connect(m_close, &QPushButton::clicked, this, &ConcurrentVerifyDialog::reject);

    m_request.mode = pick.mode;
    m_request.inferBatch = pick.batch;
    m_request.arrivalRate = problem.arrivalRate;
    m_request.problem = problem;
    m_request.predicted = pick.predicted;
    m_table->start(m_request);
    m_phase->setText(tr("The device applies the mode (it goes back by itself if the workbench "
                        "loses it), serves synthetic requests at λ in batches of b and trains "
                        "in between."));
    setRunning(false);
    resize(760, sizeHint().height());
}

ConcurrentVerifyDialog::~ConcurrentVerifyDialog() = default;

QString ConcurrentVerifyDialog::phaseText() const
{
    return m_phase->text();
}

QString ConcurrentVerifyDialog::outcomeText() const
{
    return m_outcome->text();
}

void ConcurrentVerifyDialog::setRunning(bool running)
{
    m_start->setEnabled(!running);
    m_cancel->setVisible(running);
    m_cancel->setEnabled(running && !m_cancelling);
    m_train->setEnabled(!running);
    m_infer->setEnabled(!running);
    m_duration->setEnabled(!running);
    m_keep->setEnabled(!running);
    m_close->setText(running ? tr("Stop and close") : tr("Close"));
}

void ConcurrentVerifyDialog::start()
{
    if (m_run)
        return;
    m_request.trainWorkload = m_train->currentText();
    m_request.inferWorkload = m_infer->currentText();
    m_request.durationS = m_duration->value();
    m_request.keepMode = m_keep->isChecked();
    m_table->start(m_request);
    m_outcome->clear();
    m_progress->setValue(0);
    m_timeLeft->setText(tr("%1 s to run").arg(m_request.durationS));
    m_phase->setText(tr("Connecting to %1…").arg(m_device.name));
    m_cancelling = false;
    m_firstDeviceS = -1;
    m_deviceS = 0;
    setRunning(true);
    workflows::VerificationCallbacks callbacks;
    callbacks.phase = [this](const QString &text) {
        if (!m_cancelling)
            m_phase->setText(text);
    };
    callbacks.progress = [this](const ConcurrentMeasurement &m) { showProgress(m); };
    callbacks.finished = [this](const Expected<workflows::VerificationOutcome> &o) { finish(o); };
    m_run = workflows::startVerification(m_device, m_request, callbacks);
}

void ConcurrentVerifyDialog::cancelRun()
{
    if (!m_run || m_cancelling)
        return;
    m_cancelling = true;
    m_phase->setText(tr("Cancelling: restoring the previous mode…"));
    setRunning(true);
    m_run->cancel();
}

void ConcurrentVerifyDialog::reject()
{
    if (m_run) {
        // The dialog goes once the device is back in its previous mode.
        m_closeWhenDone = true;
        cancelRun();
        return;
    }
    QDialog::reject();
}

void ConcurrentVerifyDialog::showProgress(const ConcurrentMeasurement &m)
{
    m_table->showProgress(m);
    m_deviceS = m.runSeconds;
    const double total = m_request.durationS;
    m_progress->setValue(int(std::lround(1000 * std::clamp(m.runSeconds / total, 0.0, 1.0))));
    if (m_firstDeviceS < 0) {
        m_firstDeviceS = m.runSeconds;
        m_wall.start();
    }
    const double deviceLeft = std::max(0.0, total - m.runSeconds);
    const double wallS = m_wall.elapsed() / 1000.0;
    const double pace = wallS > 0.5 ? (m.runSeconds - m_firstDeviceS) / wallS : 0;
    QString text = tr("%1 of %2 s").arg(m.runSeconds, 0, 'f', 0).arg(total);
    if (pace > 0)
        text += tr(", about %1 s left").arg(std::ceil(deviceLeft / pace), 0, 'f', 0);
    m_timeLeft->setText(text);
    if (!m_cancelling)
        m_phase->setText(tr("Serving %1 requests/s in batches of %2 while training: %3 requests "
                            "answered")
                             .arg(m_request.arrivalRate)
                             .arg(m_request.inferBatch)
                             .arg(m.requests));
}

void ConcurrentVerifyDialog::finish(const Expected<workflows::VerificationOutcome> &outcome)
{
    // Not deleted inside its own callback.
    if (m_run)
        m_run.release()->deleteLater();
    const bool cancelled = m_cancelling;
    m_cancelling = false;
    setRunning(false);
    m_timeLeft->clear();
    if (outcome) {
        m_progress->setValue(1000);
        m_table->showOutcome(*outcome);
        m_phase->setText(tr("Done."));
        m_outcome->setText(verdict(*outcome));
    } else if (cancelled) {
        m_phase->setText(tr("Cancelled."));
        m_outcome->setText(tr("The run was stopped; the device is back in its previous mode."));
    } else {
        m_phase->setText(tr("The run did not finish."));
        m_outcome->setText(
            tr("%1\n\nThe workbench put the previous mode back; if it could not reach the device, "
               "the device goes back by itself when its revert deadline passes.")
                .arg(outcome.error()));
    }
    Q_EMIT runFinished(bool(outcome));
    if (m_closeWhenDone) {
        m_closeWhenDone = false;
        QDialog::reject();
    }
}

QString ConcurrentVerifyDialog::verdict(const workflows::VerificationOutcome &o) const
{
    const ConcurrentMeasurement &m = o.measured;
    const ConcurrentProblem &problem = m_request.problem;
    QStringList lines;
    const workflows::BudgetCheck latency = workflows::latencyCheck(problem, m);
    if (latency.judged()) {
        lines << (latency.met() ? tr("Latency budget %1 s: met (p99 %2 s, slowest %3 s).")
                                      .arg(latency.budget, 0, 'f', 2)
                                      .arg(*latency.measured, 0, 'f', 3)
                                      .arg(m.latencyMs->max / 1000, 0, 'f', 3)
                                : tr("Latency budget %1 s: broken by %2 s (p99 %3 s, %4 % over).")
                                      .arg(latency.budget, 0, 'f', 2)
                                      .arg(latency.over(), 0, 'f', 3)
                                      .arg(*latency.measured, 0, 'f', 3)
                                      .arg(100 * latency.over() / latency.budget, 0, 'f', 0));
    }
    const workflows::BudgetCheck power = workflows::powerCheck(problem, m);
    if (power.budget > 0 && !power.judged()) {
        lines << tr("Power budget %1 W: not measured (the device reported no power).")
                     .arg(power.budget, 0, 'f', 1);
    } else if (power.judged()) {
        lines << (power.met() ? tr("Power budget %1 W: met (median %2 W, highest %3 W).")
                                    .arg(power.budget, 0, 'f', 1)
                                    .arg(*power.measured, 0, 'f', 1)
                                    .arg(m.powerMaxW.value_or(qQNaN()), 0, 'f', 1)
                              : tr("Power budget %1 W: broken by %2 W (median %3 W).")
                                    .arg(power.budget, 0, 'f', 1)
                                    .arg(power.over(), 0, 'f', 1)
                                    .arg(*power.measured, 0, 'f', 1));
    }
    if (m.backlog > 0)
        lines
            << tr("Inference fell behind: %1 batches waited for the previous one.").arg(m.backlog);
    lines << tr("Training: %1 minibatches/s measured, %2 by the formula with the measured times%3.")
                 .arg(m.trainPerSecond, 0, 'f', 2)
                 .arg(o.fromMeasuredTimes.throughput, 0, 'f', 2)
                 .arg(o.predicted ? tr(", %1 predicted").arg(o.predicted->throughput, 0, 'f', 2)
                                  : QString());
    lines << (o.modeKept ? tr("The device keeps %1.").arg(m_pick.mode.toShort())
                         : tr("The device is back in %1.").arg(o.previousMode.toShort()));
    return lines.join(QLatin1Char('\n'));
}

}  // namespace ptwb::ui
