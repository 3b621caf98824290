#include "concurrentcard.h"

#include "optimize/tradeoffspace.h"
#include "plaintext.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace ptwb::ui {

namespace {

QString row(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td>%2</td></tr>").arg(label, value);
}

}  // namespace

ConcurrentCard::ConcurrentCard(QWidget *parent)
    : QFrame(parent)
    , m_title(new QLabel(this))
    , m_mode(new QLabel(this))
    , m_numbers(new QLabel(this))
    , m_source(new QLabel(this))
    , m_applyStatus(plainLabel(this))
    , m_apply(new QPushButton(tr("&Apply mode to device…"), this))
    , m_cancelApply(new QPushButton(tr("Cancel"), this))
    , m_keepNow(new QPushButton(tr("Keep now"), this))
    , m_verify(new QPushButton(tr("&Verify on device…"), this))
{
    setObjectName(QStringLiteral("concurrentCard"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setWordWrap(true);
    QFont modeFont = m_mode->font();
    modeFont.setPointSizeF(modeFont.pointSizeF() * 1.6);
    modeFont.setBold(true);
    m_mode->setFont(modeFont);
    m_mode->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_mode->setWordWrap(true);
    m_numbers->setTextFormat(Qt::RichText);
    m_numbers->setWordWrap(true);
    m_numbers->setObjectName(QStringLiteral("concurrentNumbers"));
    m_source->setTextFormat(Qt::RichText);
    m_source->setWordWrap(true);
    m_applyStatus->setWordWrap(true);
    m_applyStatus->setObjectName(QStringLiteral("concurrentApplyStatus"));

    m_apply->setObjectName(QStringLiteral("concurrentApplyButton"));
    m_apply->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    m_cancelApply->setToolTip(tr("Put the previous mode back now"));
    m_keepNow->setToolTip(tr("Confirm the new mode without waiting for the countdown"));
    m_cancelApply->setVisible(false);
    m_keepNow->setVisible(false);
    m_verify->setObjectName(QStringLiteral("verifyOnDeviceButton"));
    m_verify->setEnabled(false);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_apply);
    buttons->addWidget(m_keepNow);
    buttons->addWidget(m_cancelApply);
    buttons->addWidget(m_verify);
    buttons->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_mode);
    layout->addWidget(m_numbers);
    layout->addSpacing(6);
    layout->addWidget(m_source);
    layout->addStretch();
    layout->addLayout(buttons);
    layout->addWidget(m_applyStatus);

    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (m_pair >= 0)
            Q_EMIT applyRequested(m_pickMode);
    });
    connect(m_cancelApply, &QPushButton::clicked, this, &ConcurrentCard::cancelApplyRequested);
    connect(m_keepNow, &QPushButton::clicked, this, &ConcurrentCard::keepNowRequested);
    connect(m_verify, &QPushButton::clicked, this, [this] {
        if (m_pair >= 0)
            Q_EMIT verifyRequested();
    });
    showMessage(tr("No data yet"),
                tr("Choose a training and an inference workload measured on this device."));
}

QString ConcurrentCard::titleText() const
{
    return m_title->text();
}

QString ConcurrentCard::bodyText() const
{
    return m_mode->text() + QLatin1Char('\n') + m_numbers->text() + QLatin1Char('\n') +
        m_source->text();
}

void ConcurrentCard::showPick(const ConcurrentSpace &space, const ConcurrentProblem &problem,
                              double sigmas, const ConcurrentSpace::Choice &pick)
{
    const ConcurrentData &data = space.data();
    const int pair = pick.pair;
    const ConcurrentOutcome &o = pick.outcome;
    const PowerMode &mode = data.modes[data.modeOf(pair)];
    const int batch = data.batchOf(pair);
    m_pair = pair;
    m_pickMode = mode;
    m_title->setText(tr("The most training within the budgets"));
    m_mode->setText(QStringLiteral("%1<br><span style=\"font-size: small; font-weight: "
                                   "normal\">%2</span>")
                        .arg(mode.toShort(), mode.toCanonical()));
    const double cycle = batch / problem.arrivalRate;
    QString rows;
    rows +=
        row(tr("Inference batch"),
            tr("<b>b = %1</b> requests, one batch every %2 s").arg(batch).arg(cycle, 0, 'f', 3));
    rows += row(tr("Training"),
                tr("<b>%1 minibatches/s</b> (n = %2 per cycle)")
                    .arg(o.throughput, 0, 'f', 2)
                    .arg(o.minibatchesPerCycle));
    rows += row(tr("Latency"),
                tr("<b>%1 s</b> of a %2 s budget")
                    .arg(o.latencyS, 0, 'f', 3)
                    .arg(problem.latencyBudgetS, 0, 'f', 2));
    rows += row(tr("Power"),
                tr("<b>%1 W</b> of a %2 W budget")
                    .arg(o.powerW, 0, 'f', 1)
                    .arg(problem.powerBudgetW, 0, 'f', 1));
    m_numbers->setText(QStringLiteral("<table>%1</table>").arg(rows));
    QString source = space.isMeasured(pair)
        ? tr("<b>Measured</b>: both workloads were profiled at this mode and batch size.")
        : tr("<b>Predicted</b> from %1 measured pairs%2.")
              .arg(QLocale().toString(space.measuredPairs()))
              .arg(space.training().modelId() > 0
                       ? tr(" and model %1 for the training workload's unmeasured modes")
                             .arg(space.training().modelId())
                       : QString());
    if (sigmas > 0) {
        source += QLatin1Char(' ') +
            tr("Safe pick: judged %1 σ toward slow and hungry (%2 % confidence per prediction).")
                .arg(sigmas)
                .arg(100 * Budget::confidenceOf(sigmas), 0, 'f', 0);
    }
    source += QStringLiteral("<br>") +
        tr("Apply sets the mode; set your inference server to batch %1 requests.").arg(batch);
    m_source->setText(source);
    updateApplyButton();
}

void ConcurrentCard::showNothing(const ConcurrentProblem &problem, int pairs, int keepUp,
                                 int meetLatency, int meetPower)
{
    const QLocale locale;
    showMessage(tr("Nothing is predicted to meet these budgets"),
                tr("No mode and batch size is predicted to answer within %1 s at %2 requests/s "
                   "and draw at most %3 W.<br><br>Of %4 pairs, %5 keep up with the requests, "
                   "%6 meet the latency budget and %7 the power budget on their own.")
                    .arg(problem.latencyBudgetS, 0, 'f', 2)
                    .arg(problem.arrivalRate)
                    .arg(problem.powerBudgetW, 0, 'f', 1)
                    .arg(locale.toString(pairs), locale.toString(keepUp),
                         locale.toString(meetLatency), locale.toString(meetPower)));
}

void ConcurrentCard::showMessage(const QString &title, const QString &text)
{
    m_pair = -1;
    m_title->setText(title);
    m_mode->clear();
    m_numbers->setText(text);
    m_source->clear();
    updateApplyButton();
}

void ConcurrentCard::setApplyAvailable(bool available, const QString &why)
{
    m_applyAvailable = available;
    m_applyWhy = why;
    updateApplyButton();
}

void ConcurrentCard::updateApplyButton()
{
    m_apply->setEnabled(m_applyAvailable && m_pair >= 0 && !m_applying);
    m_apply->setToolTip(m_applyAvailable && m_pair >= 0 ? m_applyWhy + QLatin1Char(' ') +
                                tr("Only the power mode is applied: the inference batch size "
                                   "is yours to set in your inference server.")
                                                        : m_applyWhy);
    m_verify->setEnabled(m_applyAvailable && m_pair >= 0 && !m_applying);
    m_verify->setToolTip(m_applyAvailable && m_pair >= 0
                             ? tr("Run the pick on the device: serve synthetic requests at the "
                                  "arrival rate in batches of b while training, and compare the "
                                  "measured latency, throughput and power with the prediction, "
                                  "live. The device goes back to its current mode afterwards.")
                             : m_applyWhy);
}

void ConcurrentCard::showApplyProgress(const QString &text, bool counting)
{
    m_applying = true;
    m_apply->setEnabled(false);
    m_applyStatus->setText(text);
    m_cancelApply->setVisible(true);
    m_keepNow->setVisible(counting);
}

void ConcurrentCard::showApplyResult(bool kept, const QString &text)
{
    m_applying = false;
    m_cancelApply->setVisible(false);
    m_keepNow->setVisible(false);
    m_applyStatus->setText(
        QStringLiteral("<b>%1</b> %2").arg(kept ? tr("Applied.") : tr("Not applied."), text));
    updateApplyButton();
}

QString ConcurrentCard::applyStatusText() const
{
    return m_applyStatus->text();
}

}  // namespace ptwb::ui
