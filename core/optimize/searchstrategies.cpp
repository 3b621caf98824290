#include "optimize/searchstrategies.h"

#include <array>

namespace ptwb {

namespace {

// Grid positions (an index into each dimension's values) and the candidate row they name.
using Position = std::array<int, kDimensionCount>;

int rowAt(const ProfilingOracle &oracle, const Position &position)
{
    PowerMode mode;
    for (Dimension dimension : kAllDimensions) {
        const int i = static_cast<int>(dimension);
        mode.setValue(dimension, oracle.values(dimension)[position[i]]);
    }
    return oracle.rowOf(mode);
}

int size(const ProfilingOracle &oracle, int dimension)
{
    return int(oracle.values(kAllDimensions[dimension]).size());
}

}  // namespace

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
    Position top;
    for (int d = 0; d < kDimensionCount; ++d)
        top[d] = size(oracle, d) - 1;
    m_row = rowAt(oracle, top);
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
    const Expected<DeviceSpec> spec = DeviceSpec::builtin(context.deviceKind);
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

Pick BinarySearchStrategy::choose(double powerBudgetW, ProfilingOracle &oracle)
{
    m_tries = 0;
    QVector<TradeoffPoint> seen;
    const auto fits = [&](const Position &position) {
        const int row = rowAt(oracle, position);
        if (row < 0)
            return false;
        ++m_tries;
        const TradeoffPoint point = oracle.profile(row);
        seen.append(point);
        return point.powerW <= powerBudgetW;
    };
    // The same fraction of every dimension's range: 0 is the slowest mode, 1 the fastest.
    const auto diagonal = [&oracle](int step, int steps) {
        Position position;
        for (int d = 0; d < kDimensionCount; ++d)
            position[d] = int(std::lround(double(step) * (size(oracle, d) - 1) / steps));
        return position;
    };
    // 1. Binary search along the diagonal for the highest fraction that fits.
    int steps = 1;
    for (int d = 0; d < kDimensionCount; ++d)
        steps = std::max(steps, size(oracle, d) - 1);
    int low = 0;
    int high = steps;
    int best = -1;
    while (low <= high) {
        const int middle = (low + high + 1) / 2;
        if (fits(diagonal(middle, steps))) {
            best = middle;
            low = middle + 1;
        } else {
            high = middle - 1;
        }
    }
    if (best < 0)
        return bestObserved(seen, powerBudgetW);
    // 2. From there, raise each dimension as far as it still fits: GPU, memory, CPU, cores
    //    (most to least important for training), each by binary search.
    Position current = diagonal(best, steps);
    const int order[] = {static_cast<int>(Dimension::Gpu), static_cast<int>(Dimension::Emc),
                         static_cast<int>(Dimension::Cpu), static_cast<int>(Dimension::Cores)};
    for (int d : order) {
        if (current[d] + 1 >= size(oracle, d))
            continue;
        // Power rises with every knob: when one step up does not fit, no higher one does.
        Position up = current;
        up[d] += 1;
        if (!fits(up))
            continue;
        current = up;
        int lowIndex = current[d] + 1;
        int highIndex = size(oracle, d) - 1;
        while (lowIndex <= highIndex) {
            const int middle = (lowIndex + highIndex + 1) / 2;
            Position trial = current;
            trial[d] = middle;
            if (fits(trial)) {
                current[d] = middle;
                lowIndex = middle + 1;
            } else {
                highIndex = middle - 1;
            }
        }
    }
    return bestObserved(seen, powerBudgetW);
}

Pick GradientDescentStrategy::choose(double powerBudgetW, ProfilingOracle &oracle)
{
    m_tries = 0;
    QVector<TradeoffPoint> seen;
    QHash<int, TradeoffPoint> known;
    const auto probe = [&](const Position &position) -> std::optional<TradeoffPoint> {
        const int row = rowAt(oracle, position);
        if (row < 0)
            return std::nullopt;
        if (const auto it = known.constFind(row); it != known.cend())
            return *it;
        if (m_tries >= kMaxProfiles)
            return std::nullopt;
        ++m_tries;
        const TradeoffPoint point = oracle.profile(row);
        known.insert(row, point);
        seen.append(point);
        return point;
    };
    // Fits beats does not; among fitting, faster; among not fitting, less power.
    const auto better = [powerBudgetW](const TradeoffPoint &a, const TradeoffPoint &b) {
        const bool aFits = a.powerW <= powerBudgetW;
        const bool bFits = b.powerW <= powerBudgetW;
        if (aFits != bFits)
            return aFits;
        return aFits ? a.timeMs < b.timeMs : a.powerW < b.powerW;
    };

    Position current;
    Position step;
    for (int d = 0; d < kDimensionCount; ++d) {
        current[d] = size(oracle, d) / 2;
        step[d] = std::max(1, size(oracle, d) / 4);
    }
    std::optional<TradeoffPoint> here = probe(current);
    if (!here)
        return bestObserved(seen, powerBudgetW);
    while (m_tries < kMaxProfiles) {
        bool moved = false;
        if (here->powerW > powerBudgetW) {
            // Over budget: power rises with every knob, so its descent direction lowers all.
            Position down = current;
            for (int d = 0; d < kDimensionCount; ++d)
                down[d] = std::max(0, current[d] - step[d]);
            const std::optional<TradeoffPoint> point = down == current ? std::nullopt : probe(down);
            if (point && better(*point, *here)) {
                current = down;
                here = point;
                continue;
            }
        }
        for (int d = 0; d < kDimensionCount && !moved; ++d) {
            for (int direction : {+1, -1}) {
                Position next = current;
                next[d] = std::clamp(current[d] + direction * step[d], 0, size(oracle, d) - 1);
                if (next == current)
                    continue;
                const std::optional<TradeoffPoint> point = probe(next);
                if (point && better(*point, *here)) {
                    current = next;
                    here = point;
                    moved = true;
                    break;
                }
            }
        }
        if (moved)
            continue;
        bool refined = false;
        for (int d = 0; d < kDimensionCount; ++d) {
            if (step[d] > 1) {
                step[d] /= 2;
                refined = true;
            }
        }
        if (!refined)
            break;
    }
    return bestObserved(seen, powerBudgetW);
}

}  // namespace ptwb
