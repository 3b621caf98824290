#pragma once

#include "util/expected.h"

#include <QByteArray>
#include <QString>

#include <optional>

struct sqlite3;
struct sqlite3_stmt;

namespace ptwb {

class SqliteStatement;

// One SQLite connection (RAII). Not thread-safe: one per thread, as SQLite wants.
class SqliteConnection
{
public:
    SqliteConnection() = default;
    ~SqliteConnection();
    SqliteConnection(const SqliteConnection &) = delete;
    SqliteConnection &operator=(const SqliteConnection &) = delete;
    SqliteConnection(SqliteConnection &&other) noexcept;
    SqliteConnection &operator=(SqliteConnection &&other) noexcept;

    // Opens (and creates when `create`) the file. Touches no byte of it.
    static Expected<SqliteConnection> open(const QString &path, bool create);

    bool isOpen() const { return m_db != nullptr; }
    // How long a statement waits for another connection's write lock before it fails with
    // "database is locked" (5000 ms from open()).
    static constexpr int kBusyTimeoutMs = 5000;
    void setBusyTimeout(int ms);
    // SQLite opened the file for reading only (the file or its folder is not writable).
    bool isReadOnly() const;
    const QString &path() const { return m_path; }

    // Runs one or more statements without results.
    Status exec(const QString &sql);
    // Ends a transaction that already failed. Nothing to report if the ROLLBACK fails too: the
    // error that made us roll back is the one the caller reports, and SQLite rolls back an
    // open transaction by itself when the connection closes.
    void rollback();
    Expected<SqliteStatement> prepare(const QString &sql);
    // The first column of the first row of a query, as an integer (0 when there is no row).
    Expected<qint64> queryInt(const QString &sql);
    qint64 lastInsertRowId() const;
    QString lastError() const;

private:
    sqlite3 *m_db = nullptr;
    QString m_path;
};

// A prepared statement (RAII). Bind indices start at 1, column indices at 0.
class SqliteStatement
{
public:
    SqliteStatement() = default;
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;
    SqliteStatement(SqliteStatement &&other) noexcept;
    SqliteStatement &operator=(SqliteStatement &&other) noexcept;

    void bind(int index, qint64 value);
    void bind(int index, double value);
    void bind(int index, const QString &value);
    void bind(int index, std::optional<double> value);
    void bindNull(int index);
    void bindBlob(int index, const QByteArray &value);

    // Steps once: true when a row is available, false when done; failure on error.
    Expected<bool> step();
    // Steps to completion and resets the statement for reuse (keeps bindings cleared).
    Status run();
    void reset();

    qint64 columnInt(int column) const;
    double columnDouble(int column) const;
    std::optional<double> columnOptionalDouble(int column) const;
    QString columnText(int column) const;
    QByteArray columnBlob(int column) const;
    bool columnIsNull(int column) const;

private:
    friend class SqliteConnection;
    SqliteStatement(sqlite3_stmt *statement, sqlite3 *db)
        : m_statement(statement)
        , m_db(db)
    {
    }

    sqlite3_stmt *m_statement = nullptr;
    sqlite3 *m_db = nullptr;
};

// Checks the first 16 bytes of an existing file for the SQLite magic without opening it with
// SQLite, so that a foreign file is never touched. An empty or missing file passes.
Status checkSqliteHeader(const QString &path);

}  // namespace ptwb
