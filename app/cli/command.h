#pragma once

#include "modes/powermode.h"
#include "util/expected.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <QTextStream>

#include <functional>

namespace ptwb {
class Store;
struct TrainingData;
}  // namespace ptwb

namespace ptwb::cli {

// Exit status contract (docs/architecture.md, "Errors and exit codes" in CONTRIBUTING.md).
enum ExitCode { kExitOk = 0, kExitFailed = 1, kExitBadInput = 2 };

// Where a command writes: text for people, or one JSON object per line with --json.
class Output
{
public:
    Output(QTextStream &out, QTextStream &err)
        : m_out(out)
        , m_err(err)
    {
    }

    bool json() const { return m_json; }
    void setJson(bool json) { m_json = json; }

    QTextStream &out() { return m_out; }
    QTextStream &err() { return m_err; }

    // Text for people, made terminal-safe (util/printable.h: no escape sequence a device put in
    // a message reaches the terminal; newlines and tabs stay).
    void line(const QString &text);
    // One JSON object; characters a terminal would act on are \u-escaped even where JSON does
    // not require it (DEL, C1, bidi controls).
    void object(const QJsonObject &object);
    // Prints the error (on stderr; with --json also as {"error":..} on stdout) and returns the
    // exit code that goes with its kind.
    int fail(const QString &message, ErrorKind kind);
    int badUsage(const QString &message) { return fail(message, ErrorKind::BadInput); }
    // A failed Expected or Status: a BadInput error about an input field is prefixed with the
    // option that sets it in this command ("--device: ..."), see Command::optionFor.
    template<typename Result>
    int fail(const Result &failed)
    {
        return failAbout(failed.field(), failed.error(), failed.errorKind());
    }
    int failAbout(InputField field, const QString &message, ErrorKind kind);
    // Set by the dispatcher: the running command's option for an input field.
    void setOptionNames(std::function<QString(InputField)> optionFor)
    {
        m_optionFor = std::move(optionFor);
    }

private:
    QTextStream &m_out;
    QTextStream &m_err;
    bool m_json = false;
    std::function<QString(InputField)> m_optionFor;
};

// One `ptwb` subcommand.
class Command
{
public:
    virtual ~Command() = default;
    virtual QString name() const = 0;
    virtual QString summary() const = 0;
    // Positional arguments for the usage line, e.g. "FILE.csv".
    virtual QString positionalSyntax() const { return {}; }
    virtual void addOptions(QCommandLineParser &parser) const = 0;
    virtual int run(const QCommandLineParser &parser, Output &output) const = 0;
    // The option of this command that sets an input field, without the dashes ("device"); empty
    // when it has none. Workflows report which field was wrong, never a flag; this maps it back.
    virtual QString optionFor(InputField field) const { return defaultOptionFor(field); }
    static QString defaultOptionFor(InputField field);
};

// Helpers shared by the commands.
QCommandLineOption dbOption();
QString dbPath(const QCommandLineParser &parser);
// A measurement file (PowerTrain CSV) of a device kind, reduced to one row per mode. Its errors are
// bad input about `field` (the option that named the file).
Expected<TrainingData> readTrainingData(const QString &path, const QString &deviceKind,
                                        InputField field);
// --device KIND (both), --reference-device KIND and --target-device KIND of the commands that
// read a reference and a target file: the published cross-device experiments (AGX Orin reference,
// Orin Nano or Xavier target) are these options.
void addDeviceKindOptions(QCommandLineParser &parser);
struct DeviceKinds
{
    QString reference;
    QString target;
};
DeviceKinds deviceKinds(const QCommandLineParser &parser);
// Writes `data` to `path` (replacing a file only once the new one is complete), or to standard
// output for "-". Returns the exit code, having reported a failure.
int writeOutput(Output &output, const QString &path, const QByteArray &data);
// "cores,cpu,gpu,mem," of a mode, the leading columns of every CSV the commands write.
void appendModeColumns(QByteArray &out, const PowerMode &mode);
// Fails with a usage error naming the first required option that is missing.
bool requireOptions(const QCommandLineParser &parser, const QStringList &names, Output &output,
                    int *exitCode);

}  // namespace ptwb::cli
