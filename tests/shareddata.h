#pragma once

#include <QDir>
#include <QString>
#include <QTest>

// The real AGX Orin measurements beside the checkout (../shared/data), never copied in.
inline QString sharedDataFile(const QString &name)
{
    return QDir(QStringLiteral(PTWB_SHARED_DATA_DIR)).filePath(QStringLiteral("orin-agx/") + name);
}

// Skips the calling test with a clear message when the shared data is absent.
#define PTWB_REQUIRE_SHARED_DATA(path)                                                             \
    do {                                                                                           \
        if (!QFile::exists(path))                                                                  \
            QSKIP(qPrintable(QStringLiteral("shared data not found at %1 (expected "               \
                                            "../shared/data beside the checkout); skipping")       \
                                 .arg(path)));                                                     \
    } while (false)
