#include "store/sqlite.h"

#include <QFile>
#include <QFileInfo>

#include <sqlite3.h>

namespace ptwb {

SqliteConnection::~SqliteConnection()
{
    if (m_db)
        sqlite3_close_v2(m_db);
}

SqliteConnection::SqliteConnection(SqliteConnection &&other) noexcept
    : m_db(std::exchange(other.m_db, nullptr))
    , m_path(std::move(other.m_path))
{
}

SqliteConnection &SqliteConnection::operator=(SqliteConnection &&other) noexcept
{
    if (this != &other) {
        if (m_db)
            sqlite3_close_v2(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
    }
    return *this;
}

Expected<SqliteConnection> SqliteConnection::open(const QString &path, bool create)
{
    SqliteConnection connection;
    const int flags =
        SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
    const QByteArray encoded = QFile::encodeName(path);
    const int rc = sqlite3_open_v2(encoded.constData(), &connection.m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        const QString message = connection.m_db ? QString::fromUtf8(sqlite3_errmsg(connection.m_db))
                                                : QString::fromUtf8(sqlite3_errstr(rc));
        return Expected<SqliteConnection>::failure(
            QStringLiteral("%1: cannot open the database: %2").arg(path, message));
    }
    sqlite3_extended_result_codes(connection.m_db, 1);
    // Another connection (a sweep writer, the GUI) may hold the write lock for a moment.
    sqlite3_busy_timeout(connection.m_db, kBusyTimeoutMs);
    connection.m_path = path;
    return connection;
}

void SqliteConnection::setBusyTimeout(int ms)
{
    sqlite3_busy_timeout(m_db, ms);
}

bool SqliteConnection::isReadOnly() const
{
    return sqlite3_db_readonly(m_db, "main") == 1;
}

void SqliteConnection::rollback()
{
    if (const Status rolledBack = exec(QStringLiteral("ROLLBACK")); !rolledBack)
        qWarning("%s", qUtf8Printable(rolledBack.error()));
}

Status SqliteConnection::exec(const QString &sql)
{
    char *message = nullptr;
    const int rc = sqlite3_exec(m_db, sql.toUtf8().constData(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
        const QString text = QString::fromUtf8(message ? message : sqlite3_errstr(rc));
        sqlite3_free(message);
        return Status::failure(text);
    }
    return {};
}

Expected<SqliteStatement> SqliteConnection::prepare(const QString &sql)
{
    sqlite3_stmt *statement = nullptr;
    const QByteArray utf8 = sql.toUtf8();
    const int rc =
        sqlite3_prepare_v2(m_db, utf8.constData(), int(utf8.size()), &statement, nullptr);
    if (rc != SQLITE_OK)
        return Expected<SqliteStatement>::failure(lastError());
    return SqliteStatement(statement, m_db);
}

Expected<qint64> SqliteConnection::queryInt(const QString &sql)
{
    auto statement = prepare(sql);
    if (!statement)
        return Expected<qint64>::failure(statement.error());
    const Expected<bool> row = statement->step();
    if (!row)
        return Expected<qint64>::failure(row.error());
    return *row ? statement->columnInt(0) : qint64(0);
}

qint64 SqliteConnection::lastInsertRowId() const
{
    return sqlite3_last_insert_rowid(m_db);
}

QString SqliteConnection::lastError() const
{
    return QString::fromUtf8(sqlite3_errmsg(m_db));
}

SqliteStatement::~SqliteStatement()
{
    if (m_statement)
        sqlite3_finalize(m_statement);
}

SqliteStatement::SqliteStatement(SqliteStatement &&other) noexcept
    : m_statement(std::exchange(other.m_statement, nullptr))
    , m_db(other.m_db)
{
}

SqliteStatement &SqliteStatement::operator=(SqliteStatement &&other) noexcept
{
    if (this != &other) {
        if (m_statement)
            sqlite3_finalize(m_statement);
        m_statement = std::exchange(other.m_statement, nullptr);
        m_db = other.m_db;
    }
    return *this;
}

void SqliteStatement::bind(int index, qint64 value)
{
    sqlite3_bind_int64(m_statement, index, value);
}

void SqliteStatement::bind(int index, double value)
{
    sqlite3_bind_double(m_statement, index, value);
}

void SqliteStatement::bind(int index, const QString &value)
{
    const QByteArray utf8 = value.toUtf8();
    sqlite3_bind_text(m_statement, index, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::bind(int index, std::optional<double> value)
{
    if (value)
        bind(index, *value);
    else
        bindNull(index);
}

void SqliteStatement::bindBlob(int index, const QByteArray &value)
{
    sqlite3_bind_blob64(m_statement, index, value.constData(), sqlite3_uint64(value.size()),
                        SQLITE_TRANSIENT);
}

void SqliteStatement::bindNull(int index)
{
    sqlite3_bind_null(m_statement, index);
}

Expected<bool> SqliteStatement::step()
{
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    return Expected<bool>::failure(QString::fromUtf8(sqlite3_errmsg(m_db)));
}

Status SqliteStatement::run()
{
    Expected<bool> result = step();
    while (result && *result)
        result = step();
    reset();
    return result ? Status() : Status::failure(result.error());
}

void SqliteStatement::reset()
{
    sqlite3_reset(m_statement);
    sqlite3_clear_bindings(m_statement);
}

qint64 SqliteStatement::columnInt(int column) const
{
    return sqlite3_column_int64(m_statement, column);
}

double SqliteStatement::columnDouble(int column) const
{
    return sqlite3_column_double(m_statement, column);
}

std::optional<double> SqliteStatement::columnOptionalDouble(int column) const
{
    if (columnIsNull(column))
        return std::nullopt;
    return columnDouble(column);
}

QString SqliteStatement::columnText(int column) const
{
    const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(m_statement, column));
    return text ? QString::fromUtf8(text, sqlite3_column_bytes(m_statement, column)) : QString();
}

QByteArray SqliteStatement::columnBlob(int column) const
{
    const auto *data = static_cast<const char *>(sqlite3_column_blob(m_statement, column));
    return data ? QByteArray(data, sqlite3_column_bytes(m_statement, column)) : QByteArray();
}

bool SqliteStatement::columnIsNull(int column) const
{
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
}

Status checkSqliteHeader(const QString &path)
{
    QFile file(path);
    if (!file.exists() || QFileInfo(path).size() == 0)
        return {};
    if (!file.open(QIODevice::ReadOnly))
        return Status::failure(
            QStringLiteral("%1: cannot read the file: %2").arg(path, file.errorString()));
    static const QByteArray magic("SQLite format 3\0", 16);
    if (file.read(16) != magic) {
        return Status::failure(
            QStringLiteral("%1: not a PowerTrain Workbench database (not an SQLite file); it was "
                           "left untouched")
                .arg(path),
            ErrorKind::BadInput);
    }
    return {};
}

}  // namespace ptwb
