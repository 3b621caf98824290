#include "optimize/searchstrategies.h"

namespace ptwb {

Pick bestObserved(const QVector<TradeoffPoint> &points, double powerBudgetW)
{
    return pickFrom(ParetoFront(points).fastestWithin(powerBudgetW));
}

Status OptimalStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &)
{
    QVector<TradeoffPoint> points;
    for (int row = 0; row < oracle.candidates().size(); ++row)
        points.append(oracle.profile(row));
    m_front = ParetoFront(points);
    return {};
}

Pick OptimalStrategy::choose(double powerBudgetW, ProfilingOracle &)
{
    return pickFrom(m_front.fastestWithin(powerBudgetW));
}

Status MaxnStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &)
{
    PowerMode top;
    for (Dimension dimension : kAllDimensions) {
        if (oracle.values(dimension).isEmpty())
            break;
        top.setValue(dimension, oracle.values(dimension).last());
    }
    m_row = oracle.rowOf(top);
    if (m_row < 0)
        return Status::failure(QStringLiteral("maxn: the candidates do not include the mode with "
                                              "every knob at its highest"),
                               ErrorKind::BadInput);
    oracle.profile(m_row);
    return {};
}

Pick MaxnStrategy::choose(double powerBudgetW, ProfilingOracle &oracle)
{
    return {m_row, oracle.candidates().powerW[m_row] <= powerBudgetW};
}

Status PresetStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &context)
{
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(context.deviceKind);
    if (!spec)
        return Status::failure(spec.error(), ErrorKind::BadInput);
    QVector<TradeoffPoint> points;
    for (const Preset &preset : spec->presets()) {
        // The fastest candidate within the preset's caps: the highest value of each dimension.
        const qint64 caps[kDimensionCount] = {preset.cores, preset.cpuMaxKHz, preset.gpuMaxHz,
                                              preset.emcMaxHz};
        PowerMode mode;
        bool possible = true;
        for (Dimension dimension : kAllDimensions) {
            const QVector<qint64> &values = oracle.values(dimension);
            const auto above =
                std::upper_bound(values.cbegin(), values.cend(), caps[static_cast<int>(dimension)]);
            possible = possible && above != values.cbegin();
            if (possible)
                mode.setValue(dimension, *(above - 1));
        }
        const int row = possible ? oracle.rowOf(mode) : -1;
        if (row >= 0)
            points.append(oracle.profile(row));
    }
    if (points.isEmpty())
        return Status::failure(QStringLiteral("nvp: no stock preset of %1 maps onto the candidates")
                                   .arg(context.deviceKind),
                               ErrorKind::BadInput);
    m_front = ParetoFront(points);
    return {};
}

Pick PresetStrategy::choose(double powerBudgetW, ProfilingOracle &)
{
    return pickFrom(m_front.fastestWithin(powerBudgetW));
}

Status RandomStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &context)
{
    std::mt19937_64 rng(context.seed);
    QVector<TradeoffPoint> points;
    for (int row : randomRows(oracle.candidates().size(), context.samples, rng))
        points.append(oracle.profile(row));
    m_front = ParetoFront(points);
    return {};
}

Pick RandomStrategy::choose(double powerBudgetW, ProfilingOracle &)
{
    return pickFrom(m_front.fastestWithin(powerBudgetW));
}

}  // namespace ptwb
