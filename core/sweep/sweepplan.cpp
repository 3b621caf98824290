#include "sweep/sweepplan.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>

namespace ptwb {

Expected<QVector<PowerMode>> SweepPlan::selectModes(const DeviceSpec &device,
                                                    const QString &modeSet, quint64 seed)
{
    using Result = Expected<QVector<PowerMode>>;
    const auto bad = [&modeSet](const QString &why) {
        return Result::failure(
            QStringLiteral("--modes '%1': %2; expected all, random:N, "
                           "als:N or grid:SPEC (e.g. grid:cores=even;cpu=every:2:2)")
                .arg(modeSet, why),
            ErrorKind::BadInput);
    };
    const ModeSpace full(device);
    QVector<PowerMode> modes;
    if (modeSet == QLatin1String("all")) {
        modes.reserve(int(full.size()));
        for (qint64 i = 0; i < full.size(); ++i)
            modes.append(full.mode(i));
    } else if (modeSet.startsWith(QLatin1String("random:"))) {
        bool ok = false;
        const qint64 count = modeSet.mid(7).toLongLong(&ok);
        if (!ok || count < 1 || count > full.size())
            return bad(QStringLiteral("N must be between 1 and %1").arg(full.size()));
        std::vector<qint64> indices(size_t(full.size()));
        std::iota(indices.begin(), indices.end(), 0);
        std::mt19937_64 rng(seed);
        std::shuffle(indices.begin(), indices.end(), rng);
        for (qint64 i = 0; i < count; ++i)
            modes.append(full.mode(indices[size_t(i)]));
    } else if (modeSet.startsWith(QLatin1String("als:"))) {
        // Adaptive: the first random modes now; active learning adds the rest as it goes.
        bool ok = false;
        const qint64 count = modeSet.mid(4).toLongLong(&ok);
        if (!ok || count < kAdaptiveStart || count > full.size())
            return bad(
                QStringLiteral("N must be between %1 and %2").arg(kAdaptiveStart).arg(full.size()));
        return selectModes(device, QStringLiteral("random:%1").arg(kAdaptiveStart), seed);
    } else if (modeSet.startsWith(QLatin1String("grid:"))) {
        Expected<ModeSpace> grid = ModeSpace::subGrid(device, modeSet.mid(5));
        if (!grid)
            return bad(grid.error());
        for (qint64 i = 0; i < grid->size(); ++i)
            modes.append(grid->mode(i));
    } else {
        return bad(QStringLiteral("unknown mode set"));
    }
    return modes;
}

void SweepPlan::orderHighToLow(QVector<PowerMode> &modes)
{
    std::stable_sort(modes.begin(), modes.end(), [](const PowerMode &a, const PowerMode &b) {
        return std::tie(a.emcHz, a.gpuHz, a.cpuKHz, a.cores) >
            std::tie(b.emcHz, b.gpuHz, b.cpuKHz, b.cores);
    });
}

}  // namespace ptwb
