#pragma once

#include <QString>

#include <optional>
#include <utility>

namespace ptwb {

// Why an operation failed, for exit codes and for callers that treat the two differently.
enum class ErrorKind {
    Failed,  // the work could not be done (I/O, a device, the database)
    BadInput,  // what the caller gave was wrong: a file, an argument, a value
};

// The outcome of an operation that can fail with a message meant for a person:
// either a value or an error text that names what was wrong and what was expected.
template<typename T>
class Expected
{
public:
    Expected(T value)  // NOLINT(google-explicit-constructor): returning a value must stay terse
        : m_value(std::move(value))
    {
    }

    static Expected failure(QString message, ErrorKind kind = ErrorKind::Failed)
    {
        Expected result;
        result.m_error = std::move(message);
        result.m_kind = kind;
        return result;
    }

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }

    const T &value() const & { return *m_value; }
    T &value() & { return *m_value; }
    T &&value() && { return std::move(*m_value); }
    const T *operator->() const { return &*m_value; }
    T *operator->() { return &*m_value; }
    const T &operator*() const { return *m_value; }
    T &operator*() { return *m_value; }

    const QString &error() const { return m_error; }
    ErrorKind errorKind() const { return m_kind; }

private:
    Expected() = default;

    std::optional<T> m_value;
    QString m_error;
    ErrorKind m_kind = ErrorKind::Failed;
};

// For operations that return nothing but can fail.
class Status
{
public:
    Status() = default;
    static Status failure(QString message, ErrorKind kind = ErrorKind::Failed)
    {
        Status status;
        status.m_error = std::move(message);
        status.m_failed = true;
        status.m_kind = kind;
        return status;
    }
    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const QString &error() const { return m_error; }
    ErrorKind errorKind() const { return m_kind; }

private:
    QString m_error;
    bool m_failed = false;
    ErrorKind m_kind = ErrorKind::Failed;
};

}  // namespace ptwb
