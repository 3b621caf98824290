#include "sweepprogresstext.h"

#include "backgroundtasks.h"
#include "sweeprunner.h"

namespace ptwb::ui {

QString sweepProgressText(const SweepProgress &p)
{
    const QString separator = QStringLiteral(" · ");
    QString text = QStringLiteral("%1 / %2 modes").arg(p.done + p.failed).arg(p.total);
    if (p.failed > 0)
        text += separator + QStringLiteral("%1 failed").arg(p.failed);
    text += separator + durationText(p.elapsedSeconds) + QStringLiteral(" elapsed");
    if (p.done + p.failed >= p.total && p.total > 0)
        return text;
    text += separator + TimeLeft::fromSeconds(p.remainingSeconds);
    return text;
}

}  // namespace ptwb::ui
