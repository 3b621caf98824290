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

// Which input a BadInput error is about, so that each front end can point at it in its own
// words: `ptwb` names its option (app/cli/inputflags.cpp), the window its widget. Messages never
// name a command-line flag themselves.
enum class InputField {
    None,
    Database,
    Device,  // the store's device name
    DeviceKind,
    Target,  // how to reach a device (sim:KIND, ssh://USER@HOST)
    Workload,
    Reference,  // the reference workload or model of a transfer
    DeviceTransfer,  // the consent to transfer across device kinds
    Modes,  // a sweep's mode set
    Mode,  // one power mode
    Resume,
    Run,  // what the device runs for a workload
    Minibatches,
    Repeats,
    Seed,
    Samples,
    Budgets,
    Strategies,
    Methods,
    Configs,
    SimulatorSpeed,
    ConfirmWithin,
    Training,  // the training workload of a concurrent problem (a file or a stored workload)
    Inference,  // its inference workload
    TrainingReference,
    InferenceReference,
    ArrivalRate,  // requests per second, one or a range
    LatencyBudget,
    PowerBudget,
    BatchSizes,  // the minibatch sizes a sweep profiles each mode at
    DatasetSamples,  // training samples per epoch, to turn epochs to accuracy into samples
};

// The outcome of an operation that can fail with a message meant for a person:
// either a value or an error text that names what was wrong and what was expected.
template<typename T>
class [[nodiscard]] Expected
{
public:
    Expected(T value)  // NOLINT(google-explicit-constructor): returning a value must stay terse
        : m_value(std::move(value))
    {
    }

    static Expected failure(QString message, ErrorKind kind = ErrorKind::Failed,
                            InputField field = InputField::None)
    {
        Expected result;
        result.m_error = std::move(message);
        result.m_kind = kind;
        result.m_field = field;
        return result;
    }
    // Bad input about one field.
    static Expected badInput(InputField field, QString message)
    {
        return failure(std::move(message), ErrorKind::BadInput, field);
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
    InputField field() const { return m_field; }

private:
    Expected() = default;

    std::optional<T> m_value;
    QString m_error;
    ErrorKind m_kind = ErrorKind::Failed;
    InputField m_field = InputField::None;
};

// For operations that return nothing but can fail.
class [[nodiscard]] Status
{
public:
    Status() = default;
    static Status failure(QString message, ErrorKind kind = ErrorKind::Failed,
                          InputField field = InputField::None)
    {
        Status status;
        status.m_error = std::move(message);
        status.m_failed = true;
        status.m_kind = kind;
        status.m_field = field;
        return status;
    }
    static Status badInput(InputField field, QString message)
    {
        return failure(std::move(message), ErrorKind::BadInput, field);
    }
    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const QString &error() const { return m_error; }
    ErrorKind errorKind() const { return m_kind; }
    InputField field() const { return m_field; }

private:
    QString m_error;
    bool m_failed = false;
    ErrorKind m_kind = ErrorKind::Failed;
    InputField m_field = InputField::None;
};

// Passes a failure on as another result type (an Expected<U> or a Status) with its message, kind
// and field: `return passOn<Status>(loaded);`. Optionally with context before the message
// ("sweep 3: ...").
template<typename To, typename From>
To passOn(const From &failed)
{
    return To::failure(failed.error(), failed.errorKind(), failed.field());
}
template<typename To, typename From>
To passOn(const From &failed, const QString &context)
{
    return To::failure(context + QStringLiteral(": ") + failed.error(), failed.errorKind(),
                       failed.field());
}

}  // namespace ptwb
