#pragma once

#include "util/expected.h"

#include <QString>

namespace ptwb {

// What a long sweep of a workload on a simulated Jetson would measure, written at once from the
// simulator's performance model (remote/simulator/corpus.py, docs/simulator.md): a PowerTrain
// CSV of the 4,368 modes of the public grid. Blocks for about half a second: call it from a
// worker or a command, not from a window's thread.
class SimulatedCorpus
{
public:
    // `sample` > 0: only that many modes of the grid, drawn at random (seeded), as a short
    // profiling sweep of a new workload would measure.
    static Status generate(const QString &deviceKind, const QString &workload,
                           const QString &outCsv, int sample = 0);
    // The command line that does it, for a person to read (the demo prints it).
    static Expected<QStringList> arguments(const QString &deviceKind, const QString &workload,
                                           const QString &outCsv, int sample = 0);
};

}  // namespace ptwb
