#pragma once

// Writes raw run folders as the PowerTrain study's profiling scripts do (docs/data-format.md,
// "Raw run folders"), with knobs to break them in every way the importer must catch.

#include "modes/powermode.h"
#include "store/rawrunfiles.h"

#include <QDir>
#include <QFile>
#include <QString>

#include <cmath>
#include <optional>

namespace ptwb::test {

struct RawRunSpec
{
    PowerMode mode;
    double timeMs = 500;  // steady minibatch time
    double powerW = 20;  // steady power
    int minibatches = 50;  // including the first (slow) one
    double firstMs = 5000;  // the first minibatch: kernel selection, data loader start
    double idleW = 12;  // before training reaches its power
    int rampSamples = 2;  // samples between idle and steady power after the first minibatch
    double oscillationW = 0;  // steady power alternates ± this (a run that never settles)
    double sampleEveryS = 1.0;
    double samplesUntilS = -1;  // < 0: until the last minibatch ends, plus a second
    QString socFamily = QStringLiteral("tegra234");
    QString machine = QStringLiteral("NVIDIA Orin Jetson-Small Developer Kit");
    std::optional<PowerMode> loggedClocks;  // what the clock dump says; default: `mode`
    QString prefix = QStringLiteral("mn_nw4_pf2");
};

inline bool writeFileText(const QString &path, const QByteArray &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

// Writes `parent`/pm_<mode>/ and returns its path; the folder's name comes from `name` when given.
inline QString writeRawRun(const QString &parent, const RawRunSpec &spec, QString name = {})
{
    if (name.isEmpty())
        name = RawRunFiles::folderNameOf(spec.mode);
    QDir(parent).mkpath(name);
    const QDir dir(QDir(parent).filePath(name));
    const PowerMode clocks = spec.loggedClocks.value_or(spec.mode);

    QByteArray dump = "//From nvpmodel giving info about CPU config and 12 cpu cores\n";
    dump +=
        QStringLiteral("SOC family:%1  Machine:%2\n").arg(spec.socFamily, spec.machine).toUtf8();
    dump += QStringLiteral("Online CPUs: 0-%1\n").arg(clocks.cores - 1).toUtf8();
    for (int cpu = 0; cpu < 12; ++cpu) {
        dump += QStringLiteral("cpu%1: Online=%2 Governor=schedutil MinFreq=%3 MaxFreq=%3 "
                               "CurrentFreq=%3 IdleStates: WFI=0 c7=0 \n")
                    .arg(cpu)
                    .arg(cpu < clocks.cores ? 1 : 0)
                    .arg(clocks.cpuKHz)
                    .toUtf8();
    }
    dump += QStringLiteral("\n// From Jetson clocks about GPU and EMC\n"
                           "GPU MinFreq=%1 MaxFreq=%1 CurrentFreq=%1\n"
                           "EMC MinFreq=204000000 MaxFreq=%2 CurrentFreq=%2 FreqOverride=1\n"
                           "NV Power Mode: pm_new\n")
                .arg(clocks.gpuHz)
                .arg(clocks.emcHz)
                .toUtf8();
    writeFileText(dir.filePath(QStringLiteral("log_file_pm_14")), dump);

    // Minibatches: a slow first one, then the steady time with a small deterministic wobble.
    QByteArray epochs = "epoch,time,loss,accuracy,epochtime_ms,log_time\n";
    double clock = 0.5;
    double trainingFrom = 0;
    for (int i = 0; i < spec.minibatches; ++i) {
        const double ms = i == 0 ? spec.firstMs : spec.timeMs * (1 + 0.01 * std::sin(i * 1.7));
        clock += ms / 1000.0;
        if (i == 0)
            trainingFrom = clock;
        epochs += QStringLiteral("0,null,\":\",null,%1,%2\n")
                      .arg(ms, 0, 'g', 12)
                      .arg(clock, 0, 'g', 12)
                      .toUtf8();
    }
    writeFileText(dir.filePath(spec.prefix + QStringLiteral("_epoch_stats.csv")), epochs);

    // Power: idle, then a ramp after the first minibatch, then steady with a small wobble.
    QByteArray power = "time,uptime,CPU1,GPU1,power cur,power avg,log_time\n";
    const double until = spec.samplesUntilS >= 0 ? spec.samplesUntilS : clock + 1;
    int rampDone = 0;
    int sample = 0;
    for (double t = 0.1; t <= until; t = 0.1 + ++sample * spec.sampleEveryS) {
        double watts = spec.idleW;
        if (t >= trainingFrom) {
            if (rampDone < spec.rampSamples) {
                ++rampDone;
                watts = spec.idleW + (spec.powerW - spec.idleW) * rampDone / (spec.rampSamples + 1);
            } else {
                watts = spec.powerW * (1 + 0.005 * std::sin(t * 3.1)) +
                    (sample % 2 ? spec.oscillationW : -spec.oscillationW);
            }
        }
        power += QStringLiteral("2023-09-18 22:08:00,0 days 03:48:05,100,0,%1,%1,%2\n")
                     .arg(qRound(watts * 1000))
                     .arg(t, 0, 'g', 12)
                     .toUtf8();
    }
    writeFileText(dir.filePath(spec.prefix + QStringLiteral("_tegrastats.csv")), power);
    return dir.absolutePath();
}

}  // namespace ptwb::test
