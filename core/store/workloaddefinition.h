#pragma once

#include "util/expected.h"

#include <QJsonObject>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace ptwb {

// A researcher's own training workload, saved by name: how the device runs it (argv, never a
// shell line; working directory; extra environment) and how a minibatch is recognised in what it
// prints. The name is also the workload name its measurements are stored under. A sweep records
// the run it was planned with, so editing a definition never changes an earlier sweep.
struct WorkloadDefinition
{
    // How the agent recognises a minibatch: the marker line `PTWB_MINIBATCH <ms>`, a regular
    // expression with one named group over stdout and stderr, or the launcher that times every
    // optimizer.step() of an unmodified PyTorch script.
    enum class Recogniser { Marker, Regex, Launcher };
    // What the regular expression's group is.
    enum class RateUnit { Milliseconds, Seconds, PerSecond };

    static constexpr int kMaxArguments = 256;
    static constexpr int kMaxEnvironment = 64;
    static constexpr int kMaxPatternLength = 500;
    static constexpr int kMaxMinibatches = 100000;
    static constexpr int kMaxTimeoutSeconds = 86400;

    QString name;
    QString deviceKind;  // orin-agx, ...; empty: any device
    QStringList argv;
    QString workingDirectory;  // empty: the agent's; "~/..." (the device user's home) or absolute
    QVector<QPair<QString, QString>> environment;  // over the agent's own
    Recogniser recogniser = Recogniser::Marker;
    QString pattern;  // Regex only
    RateUnit unit = RateUnit::Milliseconds;
    int skip = 1;  // minibatches never measured (warm-up)
    int keep = 39;  // minibatches measured per mode
    int timeoutSeconds = 120;  // no minibatch recognised by then (device seconds): the mode fails
    QString createdAt;  // ISO 8601 UTC, set by the store
    QString updatedAt;

    // Empty when the definition can be stored and run, else "field: what was expected" (field:
    // name, argv, cwd, env[i], pattern, skip, keep, timeout). Environment names that look like
    // secrets are refused: definitions are stored in plain text.
    QString problem() const;
    // The field problem() is about, for the front ends to point at ("name", "argv", "cwd",
    // "env", "pattern", "skip", "keep", "timeout"); empty when there is no problem.
    QString problemField() const;

    int minibatchesPerMode() const { return skip + keep; }
    // What the regex recogniser reads from one output line, in ms per minibatch, as the agent
    // does (a search, its named group in `unit`, the line cut to 1000 characters); nothing, with
    // `why` (when given) saying why, when the line is no minibatch. For the window's sample-line
    // check: the agent is what recognises minibatches in a run.
    std::optional<double> minibatchMsIn(const QString &line, QString *why = nullptr) const;
    // The argv as one line for display only (quoted where needed); never run through a shell.
    QString commandLine() const;

    // The definition as stored (no name, no timestamps).
    QJsonObject toJson() const;
    // A stored definition back; BadInput naming the field when it is not one.
    static Expected<WorkloadDefinition> fromJson(const QJsonObject &object, const QString &name);

    bool operator==(const WorkloadDefinition &other) const;
};

namespace WorkloadRecognisers {
QString name(WorkloadDefinition::Recogniser recogniser);  // marker, regex, launcher
bool fromName(const QString &text, WorkloadDefinition::Recogniser *out);
QString unitName(WorkloadDefinition::RateUnit unit);  // ms, s, per_s
bool unitFromName(const QString &text, WorkloadDefinition::RateUnit *out);
}  // namespace WorkloadRecognisers

// A built-in workload's inference is stored under its own workload name (a workload holds
// training or inference measurements, never both): "mobilenet_v3-inference".
inline constexpr char kInferenceSuffix[] = "-inference";
// The built-in workloads the agent (and the simulator) know by name: resnet18, mobilenet_v3.
const QStringList &builtinWorkloadBases();
// Their names as workloads (each also with kInferenceSuffix): a saved definition may not take one.
bool isBuiltinWorkloadName(const QString &name);
QStringList builtinWorkloadNames();

}  // namespace ptwb
