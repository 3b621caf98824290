#pragma once

#include "modes/powermode.h"
#include "util/expected.h"

#include <QByteArray>
#include <QString>
#include <QVector>

namespace ptwb {

// The files of one power mode's raw run folder, as the PowerTrain study's profiling scripts write
// them (docs/data-format.md, "Raw run folders"):
//   pm_<cores>_<cpu kHz>_<gpu Hz>_<mem Hz>/
//     <prefix>_epoch_stats.csv   one row per minibatch: epochtime_ms, log_time (s)
//     <prefix>_tegrastats.csv    jtop/tegrastats samples: power cur (mW), log_time (s)
//     log_file_pm_<n>            the nvpmodel/jetson_clocks dump: machine, online CPUs, clocks
// where <prefix> names the loader settings, e.g. mn_nw4_pf2. The log_time columns share one
// clock. Every parser reads untrusted text: bounded, checked, and its errors read
// "FILE:LINE: what was wrong, what was expected".
namespace RawRunFiles {

// "pm_2_1344000_114750000_3199000000" → 2/1344000/114750000/3199000000. Does not check the
// device's tables (ModeSpace does).
Expected<PowerMode> modeFromFolderName(const QString &name);
QString folderNameOf(const PowerMode &mode);

// The clocks the nvpmodel/jetson_clocks dump says the device ran at.
struct ClockDump
{
    QString machine;  // "NVIDIA Orin Jetson-Small Developer Kit"
    QString socFamily;  // "tegra234"
    int onlineCores = 0;
    QVector<qint64> onlineCpuKHz;  // CurrentFreq of every online core
    qint64 gpuHz = 0;  // GPU CurrentFreq
    qint64 emcHz = 0;  // EMC CurrentFreq
};
Expected<ClockDump> parseClockDump(const QByteArray &data, const QString &fileName);

// One minibatch: when it ended on the run's clock and how long it took.
struct Minibatch
{
    double endS = 0;
    double ms = 0;

    double startS() const { return endS - ms / 1000.0; }
};
Expected<QVector<Minibatch>> parseEpochStats(const QByteArray &data, const QString &fileName);

struct PowerSample
{
    double atS = 0;
    double watts = 0;
};
Expected<QVector<PowerSample>> parseTegrastats(const QByteArray &data, const QString &fileName);

// Splits one CSV line; double-quoted fields may hold commas and "" for a quote.
QList<QByteArray> splitCsvLine(const QByteArray &line);

}  // namespace RawRunFiles

}  // namespace ptwb
