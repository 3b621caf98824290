#include "sweep/capladder.h"

#include <algorithm>

namespace ptwb {

Expected<std::optional<double>> CapLadder::capOf(const QString &modeSet)
{
    using Result = Expected<std::optional<double>>;
    if (!modeSet.startsWith(QLatin1String("cap:")))
        return std::optional<double>();
    bool ok = false;
    const double cap = modeSet.mid(4).toDouble(&ok);
    if (!ok || !(cap > 0) || cap > 1000) {
        return Result::badInput(InputField::Modes,
                                QStringLiteral("'%1': expected cap:WATTS, a power cap above 0 "
                                               "(e.g. cap:30), with --batch-sizes")
                                    .arg(modeSet.left(40)));
    }
    return std::optional<double>(cap);
}

CapLadder::CapLadder(const DeviceSpec &device, QVector<int> batchSizes, double capW)
    : m_batches(std::move(batchSizes))
    , m_capW(capW)
{
    m_top = device.maxMode();
    m_gpu = device.values(Dimension::Gpu);  // ascending
    std::sort(m_batches.begin(), m_batches.end(), std::greater<int>());
}

PowerMode CapLadder::modeAt(int gpu) const
{
    PowerMode mode = m_top;
    mode.gpuHz = m_gpu.value(gpu);
    return mode;
}

std::optional<CapLadder::Step> CapLadder::walk(const Lookup &lookup,
                                               const std::function<void(int, int)> &visit) const
{
    int start = 0;  // where the next batch starts climbing: the last batch's highest fit
    for (int batch : m_batches) {
        int fit = -1;
        for (int gpu = start; gpu < m_gpu.size(); ++gpu) {
            const std::optional<Outcome> outcome = lookup(modeAt(gpu), batch);
            if (!outcome)
                return Step {modeAt(gpu), batch};
            if (outcome->kind == Outcome::Kind::OutOfMemory)
                break;  // this batch does not fit in any mode: the next one, from `start`
            if (outcome->kind == Outcome::Kind::Failed)
                continue;  // refused or unusable: the next clock up
            if (outcome->peakW > m_capW)
                break;  // over the cap: nothing above it fits either
            fit = gpu;
        }
        if (visit)
            visit(batch, fit);
        if (fit >= 0)
            start = fit;
    }
    return std::nullopt;
}

std::optional<CapLadder::Step> CapLadder::next(const Lookup &lookup) const
{
    return walk(lookup, {});
}

QVector<QPair<int, qint64>> CapLadder::highestFitting(const Lookup &lookup) const
{
    QVector<QPair<int, qint64>> out;
    walk(lookup, [&](int batch, int fit) { out.append({batch, fit >= 0 ? m_gpu[fit] : 0}); });
    return out;
}

}  // namespace ptwb
