#pragma once

#include "modes/devicespec.h"
#include "modes/powermode.h"
#include "util/expected.h"

#include <QVector>

#include <functional>
#include <optional>

namespace ptwb {

// A sweep over batch sizes under a power cap, in the order of the power-aware training study
// (Accelerated Training on Low-Power Edge Devices): the largest batch first, cores, CPU and
// memory at their highest and the GPU clock raised from its lowest until the peak power goes
// over the cap; then the next smaller batch from the highest clock that fitted (a smaller batch
// draws less, so that clock fits again), raising until the cap again. Per batch it profiles the
// clocks that fit and one above, never what cannot fit twice, and a batch that ran out of
// memory is left at once. Mode set "cap:WATTS" (SweepPlan), with --batch-sizes.
class CapLadder
{
public:
    // What became of one (mode, batch) of the ladder, from the sweep's own results.
    struct Outcome
    {
        enum class Kind { Measured, Failed, OutOfMemory };
        Kind kind = Kind::Measured;
        double peakW = 0;  // measured peak (the median when no peak was measured)
    };
    using Lookup = std::function<std::optional<Outcome>(const PowerMode &mode, int batch)>;

    struct Step
    {
        PowerMode mode;
        int batch = 0;
    };

    // "cap:30" -> 30 W; nothing for another mode set; bad input (the Modes field) for "cap:"
    // with no positive number.
    static Expected<std::optional<double>> capOf(const QString &modeSet);

    CapLadder(const DeviceSpec &device, QVector<int> batchSizes, double capW);

    // The next (mode, batch) to profile, replaying the ladder over what `lookup` says was
    // profiled; nothing when the ladder is done. Deterministic, so a resumed sweep goes on
    // where it stopped.
    std::optional<Step> next(const Lookup &lookup) const;

    // Per batch size (descending), the fastest GPU clock found within the cap (0: none).
    QVector<QPair<int, qint64>> highestFitting(const Lookup &lookup) const;

    // The mode of the ladder at GPU clock index `gpu`.
    PowerMode modeAt(int gpu) const;

private:
    // Walks the ladder; calls `visit(batch, highest fitting index or -1)` per finished batch.
    std::optional<Step> walk(const Lookup &lookup,
                             const std::function<void(int, int)> &visit) const;

    PowerMode m_top;  // cores, CPU and memory at their highest
    QVector<qint64> m_gpu;  // ascending
    QVector<int> m_batches;  // descending
    double m_capW = 0;
};

}  // namespace ptwb
