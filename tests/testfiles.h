#pragma once

#include <QFile>
#include <QTemporaryDir>

// Writes `data` to `name` inside `dir` and returns its path (aborts the test binary on failure:
// every later check would be meaningless).
inline QString writeTestFile(const QTemporaryDir &dir, const QString &name, const QByteArray &data)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

inline QByteArray readTestFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
