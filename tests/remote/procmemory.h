#pragma once

#include <QFile>
#include <QString>

// Memory figures of a process from /proc/PID/status ("self" for this one), in KiB: VmRSS (now)
// and VmHWM (the peak). -1 when unreadable. The hostile-device tests bound them (issue 21).
inline qint64 procStatusKiB(const QString &pid, const char *field)
{
    QFile file(QStringLiteral("/proc/%1/status").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray prefix = QByteArray(field) + ':';
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

inline qint64 ownRssKiB()
{
    return procStatusKiB(QStringLiteral("self"), "VmRSS");
}

inline qint64 ownPeakKiB()
{
    return procStatusKiB(QStringLiteral("self"), "VmHWM");
}
