#pragma once

#include "modes/modespace.h"
#include "store/measurement.h"
#include "store/runreduction.h"

#include <QStringList>

#include <optional>

namespace ptwb {

// What one raw run folder gave: a measurement, or the reason it cannot be imported.
struct RunFolderResult
{
    QString folder;  // its name, e.g. pm_2_1344000_114750000_3199000000
    QString sha256;  // of the logs it was reduced from, so it is imported once
    std::optional<Measurement> measurement;
    ReducedRun reduction;
    QString machine;  // from the clock dump
    QString error;  // "folder/file:line: what was wrong, what was expected"
    bool alreadyImported = false;

    bool ok() const { return measurement.has_value(); }
};

// Reads one raw run folder as the study's scripts write it (RawRunFiles), checks the folder's
// mode against the clock dump and the device's tables, and reduces the logs to a measurement.
// Touches no store.
class RawRunFolder
{
public:
    explicit RawRunFolder(const ModeSpace &space, RunReductionOptions options = {},
                          QString socFamily = {});

    RunFolderResult read(const QString &path) const;

    // The run folders under `path`: `path` itself when it is one, else its subfolders named
    // pm_*, sorted. An error when there is none.
    static Expected<QStringList> find(const QString &path);
    static bool looksLikeRunFolder(const QString &name);

private:
    QString checkClocks(const PowerMode &mode, const RawRunFiles::ClockDump &dump,
                        const QString &logName) const;

    const ModeSpace &m_space;
    RunReductionOptions m_options;
    QString m_socFamily;  // the device kind's, when its table names one
};

}  // namespace ptwb
