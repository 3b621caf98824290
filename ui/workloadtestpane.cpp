#include "workloadtestpane.h"

#include "store/workloadoutput.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTextBlock>
#include <QTextCursor>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

namespace {

constexpr int kDefaultSeconds = 30;
const QColor kErrorColor(0xc6, 0x28, 0x28);
const QColor kRecognisedBackground(0xdf, 0xf3, 0xe0);
const QColor kRecognisedText(0x1b, 0x5e, 0x20);

QString minibatchCount(int n)
{
    return n == 1 ? QObject::tr("1 minibatch") : QObject::tr("%1 minibatches").arg(n);
}

}  // namespace

WorkloadTestPane::WorkloadTestPane(QWidget *parent)
    : QWidget(parent)
{
    m_seconds = new QSpinBox(this);
    m_seconds->setObjectName(QStringLiteral("testSeconds"));
    m_seconds->setRange(1, 600);
    m_seconds->setValue(kDefaultSeconds);
    m_seconds->setSuffix(tr(" s"));
    m_seconds->setToolTip(tr("Run the workload for at most this many seconds (on the device); "
                             "the test stops early once enough minibatches were recognised"));
    m_testButton = new QPushButton(tr("&Test on device"), this);
    m_testButton->setObjectName(QStringLiteral("testButton"));
    m_cancelButton = new QPushButton(tr("Cancel test"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelTestButton"));
    m_cancelButton->setToolTip(tr("Stop the workload on the device; what it printed so far is "
                                  "shown"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("testProgress"));
    m_progress->setRange(0, kDefaultSeconds);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_progress->setVisible(false);  // while a test runs, and after
    m_progress->setToolTip(tr("Seconds of the test so far, of the most it runs"));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("testStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_status->setToolTip(tr("Minibatches recognised so far and the time left"));
    m_testButton->setAutoDefault(false);  // Enter in the editor never starts a test
    m_cancelButton->setAutoDefault(false);
    connect(m_testButton, &QPushButton::clicked, this, &WorkloadTestPane::startTest);
    connect(m_cancelButton, &QPushButton::clicked, this, &WorkloadTestPane::cancelTest);

    m_output = new QPlainTextEdit(this);
    m_output->setObjectName(QStringLiteral("testOutput"));
    m_output->setReadOnly(true);
    m_output->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setPlaceholderText(tr("The last lines the workload prints appear here, its "
                                    "recognised minibatches highlighted."));
    m_output->setToolTip(tr("The workload's last output lines (out: stdout, err: stderr); the "
                            "highlighted ones were recognised as minibatches, with their ms"));
    m_output->setMinimumHeight(120);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("testSummary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setToolTip(tr("The median minibatch time and power of the test, or why no "
                             "minibatch was recognised"));

    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Run for up to"), this));
    row->addWidget(m_seconds);
    row->addWidget(m_testButton);
    row->addWidget(m_cancelButton);
    row->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_output, 1);
    layout->addWidget(m_summary);

    m_tick.setInterval(250);
    connect(&m_tick, &QTimer::timeout, this, &WorkloadTestPane::updateProgress);
    updateControls();
}

WorkloadTestPane::~WorkloadTestPane()
{
    if (m_test) {
        // The dialog closes mid-test: stop the workload; its result goes nowhere.
        disconnect(m_test.get(), nullptr, this, nullptr);
        m_test->cancel();
        m_test.release()->deleteLater();
    }
}

void WorkloadTestPane::setDevice(const workflows::DeviceEndpoint &device)
{
    m_device = device;
    updateControls();
}

void WorkloadTestPane::setDefinition(const WorkloadDefinition &definition, bool testable,
                                     const QString &whyNot)
{
    m_definition = definition;
    m_testable = testable;
    m_whyNot = whyNot;
    updateControls();
}

int WorkloadTestPane::seconds() const
{
    return m_seconds->value();
}

void WorkloadTestPane::setSeconds(int seconds)
{
    m_seconds->setValue(seconds);
}

QString WorkloadTestPane::outputText() const
{
    return m_output->toPlainText();
}

QString WorkloadTestPane::summaryText() const
{
    return m_summary->text();
}

QString WorkloadTestPane::statusText() const
{
    return m_status->text();
}

void WorkloadTestPane::updateControls()
{
    const bool running = m_test != nullptr;
    const bool ready = m_device.isValid() && m_testable;
    m_testButton->setEnabled(!running && ready);
    m_cancelButton->setEnabled(running && !m_cancelling);
    m_seconds->setEnabled(!running);
    QString tip = tr("Run this workload on %1 in its current mode and show what was recognised "
                     "(Ctrl+T); the mode is not changed")
                      .arg(m_device.isValid() ? m_device.name : tr("the device"));
    if (!m_device.isValid())
        tip = tr("No device: connect one in the Devices view first");
    else if (!m_testable)
        tip = m_whyNot.isEmpty() ? tr("Nothing to test") : m_whyNot;
    m_testButton->setToolTip(tip);
}

void WorkloadTestPane::startTest()
{
    if (m_test || !m_device.isValid() || !m_testable)
        return;
    m_minibatches = 0;
    m_deviceSeconds = 0;
    m_highlighted = 0;
    m_cancelling = false;
    m_output->clear();
    m_summary->clear();
    m_progress->setRange(0, m_seconds->value());
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_status->setText(tr("Connecting to %1…").arg(m_device.name));
    m_test = workflows::startWorkloadTest(m_device, WorkloadSpec::fromDefinition(m_definition),
                                          m_seconds->value());
    connect(m_test.get(), &workflows::WorkloadTest::connected, this, [this](const QString &name) {
        if (m_minibatches == 0 && !m_cancelling)
            m_status->setText(tr("Running on %1 · waiting for the first minibatch…").arg(name));
    });
    connect(m_test.get(), &workflows::WorkloadTest::minibatch, this, [this](int, double ms) {
        ++m_minibatches;
        if (ms > 0)
            m_deviceSeconds += ms / 1000;
        updateProgress();
    });
    connect(m_test.get(), &workflows::WorkloadTest::finished, this,
            [this](const Expected<workflows::WorkloadTestReport> &report) {
                m_tick.stop();
                m_test.release()->deleteLater();  // not inside its own signal
                updateControls();
                showReport(report);
                Q_EMIT runningChanged(false);
                Q_EMIT testFinished(report && report->recognised());
            });
    m_clock.start();
    m_tick.start();
    updateControls();
    Q_EMIT runningChanged(true);
}

void WorkloadTestPane::cancelTest()
{
    if (!m_test || m_cancelling)
        return;
    m_cancelling = true;
    m_status->setText(tr("Stopping the workload…"));
    m_test->cancel();
    updateControls();
}

void WorkloadTestPane::updateProgress()
{
    if (!m_test || m_cancelling)
        return;
    // Device seconds: the simulated Jetson runs faster than the wall clock; its minibatches say
    // how far it is. A real device's clock is the wall's.
    const double elapsed = std::max(m_clock.elapsed() / 1000.0, m_deviceSeconds);
    const int total = m_seconds->value();
    m_progress->setValue(std::min(total, int(elapsed)));
    const int left = std::max(0, int(std::ceil(total - elapsed)));
    m_status->setText(
        m_minibatches == 0
            ? tr("Running · no minibatch recognised yet · at most %1 s left").arg(left)
            : tr("Running · %1 recognised · at most %2 s left")
                  .arg(minibatchCount(m_minibatches))
                  .arg(left));
}

void WorkloadTestPane::showReport(const Expected<workflows::WorkloadTestReport> &report)
{
    m_output->clear();
    m_highlighted = 0;
    QPalette palette = m_summary->palette();
    palette.setColor(QPalette::WindowText, palette.color(QPalette::WindowText));
    if (!report && m_cancelling) {
        m_status->setText(tr("Cancelled: the workload was stopped on the device"));
        m_summary->clear();
        m_progress->setVisible(false);
        m_cancelling = false;
        return;
    }
    m_cancelling = false;
    if (!report) {
        m_status->setText(tr("The test did not run"));
        m_summary->setText(WorkloadOutput::sanitisedText(report.error()));
        palette.setColor(QPalette::WindowText, kErrorColor);
        m_summary->setPalette(palette);
        m_progress->setVisible(false);
        return;
    }
    const workflows::WorkloadTestReport &r = *report;
    QTextCursor cursor(m_output->document());
    QTextCharFormat plain;
    QTextCharFormat recognised;
    recognised.setForeground(kRecognisedText);
    recognised.setFontWeight(QFont::Bold);
    QTextBlockFormat normalBlock;
    QTextBlockFormat recognisedBlock;
    recognisedBlock.setBackground(kRecognisedBackground);
    // The skipped (warm-up) minibatches are recognised but not measured: shown apart. The tail
    // holds the last of r.minibatches, so its first recognised line is number (all - in tail).
    QTextCharFormat skipped;
    skipped.setForeground(QColor(0x75, 0x75, 0x75));
    const int inTail = int(std::count_if(r.lines.cbegin(), r.lines.cend(),
                                         [](const auto &line) { return line.ms.has_value(); }));
    int index = std::max(0, r.minibatches - inTail);
    bool first = true;
    for (const workflows::OutputLine &line : r.lines) {
        if (!first)
            cursor.insertBlock();
        first = false;
        const bool minibatch = line.ms.has_value();
        const bool warmUp = minibatch && index++ < m_definition.skip;
        cursor.setBlockFormat(minibatch && !warmUp ? recognisedBlock : normalBlock);
        const QString gutter = !minibatch ? QString(9, QLatin1Char(' '))
            : warmUp                      ? tr("skipped  ")
                                          : QStringLiteral("%1 ms").arg(*line.ms, 6, 'f', 1);
        cursor.insertText(QStringLiteral("%1 %2 \u2502 ")
                              .arg(line.stream == QLatin1String("err") ? QStringLiteral("err")
                                                                       : QStringLiteral("out"),
                                   gutter),
                          !minibatch   ? plain
                              : warmUp ? skipped
                                       : recognised);
        cursor.insertText(WorkloadOutput::sanitisedText(line.text), plain);
        if (minibatch && !warmUp)
            ++m_highlighted;
    }
    // The newest lines in view, from their first column.
    m_output->moveCursor(QTextCursor::End);
    m_output->ensureCursorVisible();
    m_output->horizontalScrollBar()->setValue(0);

    m_progress->setVisible(false);
    const QString ran = tr("Ran %1 s on the device").arg(r.seconds, 0, 'f', 1);
    const QString exited = r.exitStatus ? tr(", exited with status %1").arg(*r.exitStatus)
        : r.recognised()                ? tr(", stopped once it had enough minibatches")
                                        : tr(", stopped at the time limit");
    m_status->setText(ran + exited);
    if (!r.recognised()) {
        m_summary->setText(
            (r.minibatches > 0 ? tr("\u2718 Nothing measured: %1")
                               : tr("\u2718 Nothing recognised: %1"))
                .arg(WorkloadOutput::sanitisedText(
                    r.reason.isEmpty() ? tr("no minibatch was recognised") : r.reason)));
        palette.setColor(QPalette::WindowText, kErrorColor);
    } else {
        QString text = tr("\u2714 %1 recognised").arg(minibatchCount(r.minibatches));
        if (r.medianMs)
            text += tr(" · median %1 ms per minibatch").arg(*r.medianMs, 0, 'f', 1);
        if (r.medianW)
            text += tr(" · median power %1 W").arg(*r.medianW, 0, 'f', 1);
        m_summary->setText(text);
        palette.setColor(QPalette::WindowText, kRecognisedText);
    }
    m_summary->setPalette(palette);
}

}  // namespace ptwb::ui
