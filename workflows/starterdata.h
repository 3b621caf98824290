#pragma once

#include "util/expected.h"

#include <QString>

namespace ptwb {

// A first run on a simulated Jetson: an empty store gets what the PowerTrain story starts from,
// simulated (docs/simulator.md) and stored under the device name "simulated-KIND" so it never
// passes for a real device's data: a reference workload (ResNet-18) profiled on the public
// grid's 4,368 modes, and a new workload (MobileNet v3) profiled on 50 random modes. The window
// then trains the reference model and transfers it in its Models view, with the loss curves.
class StarterData
{
public:
    static constexpr const char *kReferenceWorkload = "resnet18";
    static constexpr const char *kNewWorkload = "mobilenet_v3";
    static constexpr int kNewWorkloadModes = 50;

    static QString deviceName(const QString &deviceKind);
    // Blocks for about a second: run it on a worker. The number of modes of the reference
    // corpus it stored (the device kind's grid: 4,368 on the AGX Orin), or 0 when the store
    // already held measurements of this device kind (nothing is changed then).
    static Expected<qint64> importCorpora(const QString &dbPath, const QString &deviceKind);
    // One more simulated corpus of `workload` (`sample` > 0: that many random modes). Returns
    // the number of distinct modes stored.
    static Expected<qint64> importCorpus(const QString &dbPath, const QString &deviceKind,
                                         const QString &workload, int sample);
    // For benchmarks and tests: importCorpora, then the reference model and its transfer, as
    // the window would make them.
    static Status prepareWithModels(const QString &dbPath, const QString &deviceKind);
};

}  // namespace ptwb
