#pragma once

#include "modes/devicespec.h"
#include "util/expected.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace ptwb {

// What a connected device reports about itself (the agent's hello), as its own spec needs it.
struct DeviceReport
{
    // A preset as nvpmodel lists it; the caps are those the device said (a preset without all
    // four is listed by name but is no baseline).
    struct ReportedPreset
    {
        QString name;
        int id = 0;
        std::optional<Preset> caps;
    };

    QString model;  // the device-tree model
    QString l4t;  // "36.4.0"
    int maxCores = 0;
    QVector<qint64> cpuKHz;  // the CPU's available frequencies, any order
    QVector<qint64> gpuHz;
    QVector<qint64> emcHz;  // empty when EMC cannot be controlled on this device
    qint64 currentEmcHz = 0;  // what EMC runs at now: the one value when it cannot be controlled
    QVector<ReportedPreset> presets;
    QString currentPreset;
    QStringList rails;
};

// The device's own spec (issue 22): its family from the model, its tables as reported. The id is
// the family and the first 12 hex digits of a SHA-256 of the tables and presets
// ("orin-nano-super-3f2a9c01d4e7"), so the same device on the same release keeps its id and a
// JetPack upgrade that changes the tables gets a new one. An EMC the device does not let us
// control is fixed at its current value. A report without what a spec needs (a known family, a
// table of cores, CPU and GPU clocks, an EMC clock) is refused, naming what is missing.
Expected<DeviceSpec> deviceSpecFromReport(const DeviceReport &report);

// What the workbench takes a connected device for. `kind` is the family's id when the device's
// tables are the built-in table's (every simulated device, a stock AGX Orin on the tables the
// study used), else its own spec's id, remembered (DeviceSpec::remember) so that DeviceSpec::
// lookup finds it: its mode space, MAXN, presets and the validation of a mode are then the
// device's own. Empty, with `problem` saying what is missing, for a device the workbench cannot
// drive (an unknown family, no clock tables): refused, never half-used.
struct DeviceKind
{
    QString kind;
    QString problem;
    std::optional<DeviceSpec> spec;  // the device's own, when one could be built
    bool matchesBuiltin = false;
};
// `reportedKind`: the kind the agent named (its own family guess), used only when the report
// holds no tables to build a spec from.
DeviceKind deviceKindOf(const DeviceReport &report, const QString &reportedKind);

}  // namespace ptwb
