#pragma once

#include "modes/modespace.h"
#include "util/expected.h"

#include <QString>
#include <QVector>

namespace ptwb {

// What a sweep will profile, decided and stored before the first mode is touched.
struct SweepPlan
{
    static constexpr int kAdaptiveStart = 20;
    static constexpr int kAdaptiveBatch = 10;

    QString device;  // the store's device name
    QString deviceKind;  // orin-agx, ...
    QString workload;  // the store's workload name
    QString target;  // where it runs, as DeviceTarget::toString() prints it (no secrets)
    QString modeSet;  // all, random:N, als:N, grid:SPEC
    QString run;  // what the device runs, WorkloadSpec as JSON text
    int minibatches = 40;
    int repeats = 1;
    quint64 seed = 0;
    QVector<PowerMode> modes;  // in profiling order; each listed `repeats` times in a row

    // Chooses the modes of `modeSet` from the device's space:
    //   all            every mode
    //   random:N       N distinct modes drawn with `seed`
    //   grid:SPEC      a sub-grid, as ModeSpace::subGrid ("cores=even;cpu=every:2:2")
    //   als:N          adaptive: kAdaptiveStart random modes now, then active learning adds
    //                  batches (ActiveSelection) until N modes or until it converges
    // Errors name the mode set and say what was expected.
    static Expected<QVector<PowerMode>> selectModes(const DeviceSpec &device,
                                                    const QString &modeSet, quint64 seed);

    // Orders modes from high to low clocks (memory, then GPU, CPU, cores): most changes then
    // only lower clocks, and a raise happens once per block of the outer clocks. The PowerTrain
    // study saw devices that accept a higher frequency only after a reboot; this order keeps
    // such raises rare. (A device that reports it cannot raise at all is for a later version.)
    static void orderHighToLow(QVector<PowerMode> &modes);
};

}  // namespace ptwb
