#pragma once

// Reading a test's SQLite store directly (the real file, as the product wrote it).

#include "store/sqlite.h"

#include <QString>

// The one integer `sql` selects from the store at `db`; -1 when it cannot be read.
inline qint64 queryInt(const QString &db, const QString &sql)
{
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return -1;
    const ptwb::Expected<qint64> value = connection->queryInt(sql);
    return value ? *value : -1;
}
