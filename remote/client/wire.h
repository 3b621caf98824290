#pragma once

#include "modes/devicereport.h"
#include "modes/plausibility.h"
#include "modes/powermode.h"
#include "store/workloadoutput.h"
#include "util/expected.h"

#include <QJsonObject>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace ptwb {

struct WorkloadDefinition;

// Typed views of the agent's JSON (docs/device-protocol.md). Parsing checks every field the
// desktop relies on and names the one that is missing or of the wrong type.

// The most cores a mode read from a device may have (no Jetson has more than 12).
constexpr qint64 kMaxWireCores = 1024;

QJsonObject modeToJson(const PowerMode &mode);
Expected<PowerMode> modeFromJson(const QJsonObject &object, const QString &field);

struct Quartiles3
{
    double median = 0;
    double q1 = 0;
    double q3 = 0;
};

struct DevicePreset
{
    int id = 0;
    QString name;
    // Its caps as nvpmodel.conf gives them (the agent reads them); 0 where it did not say.
    int cores = 0;
    qint64 cpuMaxKHz = 0;
    qint64 gpuMaxHz = 0;
    qint64 emcMaxHz = 0;
};

// What `hello` says about the device.
struct DeviceInfo
{
    QString agentVersion;
    QString model;  // device-tree model, "(simulated)" on the simulator
    // The model and L4T release are cut to these lengths: they are stored and shown.
    static constexpr int kMaxModelChars = 256;
    static constexpr int kMaxL4tChars = 64;
    // What the workbench takes the device for (deviceKindOf): a built-in kind ("orin-nano-super")
    // when its tables are the built-in table's, else its own spec's id, whose tables DeviceSpec::
    // lookup finds. Empty when it cannot be driven: `kindProblem` says what is missing.
    QString kind;
    QString kindProblem;
    bool ownTables = false;  // its tables differ from its family's built-in table
    QString reportedKind;  // the family the agent named, or empty
    QString l4t;
    QString bootId;
    bool simulated = false;
    QVector<int> cores;
    QVector<qint64> cpuKHz;
    QVector<qint64> gpuHz;
    QVector<qint64> emcHz;
    QVector<DevicePreset> presets;
    QStringList rails;
    PowerMode mode;  // current
    double hottestC = 0;  // the hottest thermal zone, 0 when none reads
    QString hottestZone;
    // Which mode changes the device accepts without a reboot: "any", or "decreasing" (clocks
    // and cores may only go down). "any" from an agent that does not say.
    QString modeChanges = QStringLiteral("any");

    // The privileged helper that changes clocks (docs/ssh.md, "Least privilege"): "ok", or why
    // it cannot be used ("missing", "unsafe", "outdated", "modified", "not_allowed", "failed"),
    // with the agent's message saying how to fix it. "ok" from an agent that does not say.
    QString helperState = QStringLiteral("ok");
    QString helperMessage;

    // The revert armed on the device, if any (hello's "revert"): its token, whether it was armed
    // at boot for a mode applied by reboot, and the device seconds left before it fires.
    struct ArmedRevert
    {
        QString token;
        bool byReboot = false;
        double secondsLeft = 0;
    };
    std::optional<ArmedRevert> revert;

    bool decreasingOnly() const { return modeChanges == QLatin1String("decreasing"); }
    bool helperUsable() const { return helperState == QLatin1String("ok"); }

    static Expected<DeviceInfo> fromJson(const QJsonObject &result);
    // What the device's own spec is built from (deviceSpecFromReport, issue 22).
    DeviceReport report() const;
    // "Jetson AGX Orin (simulated) · L4T R35.4.1 · 12c/2.20C/1.30G/3.20M"
    QString summary() const;
};

// What `profile` returns for one mode.
struct ProfileResult
{
    Quartiles3 timeMs;
    Quartiles3 powerW;
    std::optional<double> peakPowerW;  // the largest power sample of the window, when sent
    int minibatches = 0;
    int discarded = 0;
    double settleSeconds = 0;
    bool settled = true;
    PowerMode mode;  // read back after the run: throttling shows here
    QString bootId;

    // Refuses numbers outside `ranges` (the device's, when its kind is known), a quartile out
    // of order (q1 <= median <= q3) and a peak below the median, naming the field and value.
    static Expected<ProfileResult> fromJson(const QJsonObject &result,
                                            const PlausibleRanges &ranges = anyJetsonRanges());
};

// A workload for `profile`: a built-in PyTorch loop or the user's own command (argv, no shell).
struct WorkloadSpec
{
    QString builtin;  // resnet18, mobilenet_v3; empty for a command
    int batchSize = 16;
    // Inference minibatches of batchSize requests instead of training ones. A command is told
    // with PTWB_INFERENCE=1 in its environment.
    bool inference = false;
    QStringList argv;
    QString workingDirectory;
    // A command is told its batch size (PTWB_BATCH_SIZE in its environment) only when this is
    // set (a sweep over batch sizes); a built-in workload always has one.
    bool commandTakesBatch = false;
    // A command's extra environment (over the agent's own), how its minibatches are recognised
    // ("marker", "regex", "launcher"; empty: the agent's default, the marker), the regex and
    // the unit of its group ("ms", "s", "per_s"), the minibatches never measured, and the
    // device seconds without a recognised minibatch before it fails (0: the agent's default).
    // Left out of the JSON when unset, so a plan stored before them reads back the same.
    QVector<QPair<QString, QString>> environment;
    QString recogniser;
    QString pattern;
    QString unit;
    int skip = 0;
    int timeoutSeconds = 0;

    // The same workload at minibatch size `batch` (batch <= 0: unchanged).
    WorkloadSpec atBatch(int batch) const;
    // The minibatch size its measurements are at; 0 when not known (a command not told it).
    int knownBatch() const { return builtin.isEmpty() && !commandTakesBatch ? 0 : batchSize; }

    QJsonObject toJson() const;
    static Expected<WorkloadSpec> fromJson(const QJsonObject &object);
    // What the device runs for a saved definition (its skip included; its keep is the sweep's
    // minibatches: WorkloadDefinition::minibatchesPerMode).
    static WorkloadSpec fromDefinition(const WorkloadDefinition &definition);
};

// The last lines a failed workload printed (a `workload_failed` error's "output", docs/device-
// protocol.md), sanitised; empty when the agent sent none.
QVector<WorkloadOutputLine> failedWorkloadOutput(const QJsonObject &errorDetails);

}  // namespace ptwb
