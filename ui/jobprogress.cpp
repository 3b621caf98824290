#include "jobprogress.h"

#include "plaintext.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <algorithm>

namespace ptwb::ui {

JobProgress::JobProgress(QProgressBar *bar, QPushButton *cancel, QLabel *status)
    : m_bar(bar)
    , m_cancel(cancel)
    , m_status(status)
{
    m_bar->setRange(0, kSteps);
    m_bar->setTextVisible(true);
    m_status->setWordWrap(true);
    makePlain(m_status);  // job messages carry file, workload and device text
}

void JobProgress::begin(const QString &what)
{
    m_timeLeft.start();
    m_bar->setValue(0);
    m_bar->setFormat(QObject::tr("loading measurements…"));
    m_bar->setVisible(true);
    m_cancel->setVisible(true);
    setStatus(what);
}

void JobProgress::update(double fraction, const QString &text)
{
    updateText(fraction, QStringLiteral("%1 — %2").arg(text, m_timeLeft.text(fraction)));
}

void JobProgress::updateText(double fraction, const QString &text)
{
    m_bar->setValue(int(std::clamp(fraction, 0.0, 1.0) * kSteps));
    m_bar->setFormat(text);
}

void JobProgress::setStatus(const QString &text)
{
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

void JobProgress::end(const QString &message)
{
    m_bar->setVisible(false);
    m_cancel->setVisible(false);
    setStatus(message);
}

}  // namespace ptwb::ui
