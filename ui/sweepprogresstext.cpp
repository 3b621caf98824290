#include "sweepprogresstext.h"

#include "sweeprunner.h"

#include <cmath>

namespace ptwb::ui {

QString durationText(double seconds)
{
    const qint64 s = qMax<qint64>(0, qint64(std::llround(seconds)));
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1 h %2 min")
        .arg(s / 3600)
        .arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString sweepProgressText(const SweepProgress &p)
{
    const QString separator = QStringLiteral(" · ");
    QString text = QStringLiteral("%1 / %2 modes").arg(p.done + p.failed).arg(p.total);
    if (p.failed > 0)
        text += separator + QStringLiteral("%1 failed").arg(p.failed);
    text += separator + durationText(p.elapsedSeconds) + QStringLiteral(" elapsed");
    if (p.done + p.failed >= p.total && p.total > 0)
        return text;
    text += separator +
        (p.remainingSeconds < 0
             ? QStringLiteral("estimating time left")
             : QStringLiteral("about %1 left").arg(durationText(p.remainingSeconds)));
    return text;
}

}  // namespace ptwb::ui
