#include "predict/residualcorrection.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptwb {

namespace {

bool usable(double value)
{
    return std::isfinite(value) && value > 0;
}

}  // namespace

ResidualCorrection::ResidualCorrection(const QVector<PowerMode> &candidates)
    : m_features(candidates.size())
{
    std::array<double, kDimensionCount> low;
    std::array<double, kDimensionCount> high;
    low.fill(std::numeric_limits<double>::infinity());
    high.fill(-std::numeric_limits<double>::infinity());
    for (int i = 0; i < candidates.size(); ++i) {
        for (int d = 0; d < kDimensionCount; ++d) {
            const double value = std::log(double(candidates[i].value(Dimension(d))));
            m_features[i][d] = value;
            low[d] = std::min(low[d], value);
            high[d] = std::max(high[d], value);
        }
    }
    for (auto &x : m_features) {
        for (int d = 0; d < kDimensionCount; ++d)
            x[d] = high[d] > low[d] ? (x[d] - low[d]) / (high[d] - low[d]) : 0;
    }
}

ModePredictions ResidualCorrection::apply(const ModePredictions &predicted,
                                          const QVector<int> &rows,
                                          const QVector<double> &observedTimeMs,
                                          const QVector<double> &observedPowerW) const
{
    struct Anchor
    {
        int row;
        double timeResidual;
        double powerResidual;
    };
    std::vector<Anchor> anchors;
    for (int k = 0; k < rows.size(); ++k) {
        const int row = rows[k];
        if (row < 0 || row >= int(m_features.size()) || !usable(observedTimeMs[k]) ||
            !usable(observedPowerW[k]) || !usable(predicted.timeMs[row]) ||
            !usable(predicted.powerW[row]))
            continue;
        anchors.push_back({row, std::log(observedTimeMs[k] / predicted.timeMs[row]),
                           std::log(observedPowerW[k] / predicted.powerW[row])});
    }
    ModePredictions out = predicted;
    const double twoLengthSquared = 2 * kLengthScale * kLengthScale;
    for (int i = 0; i < int(m_features.size()) && i < out.timeMs.size(); ++i) {
        double weights = kPriorWeight;
        double time = 0;
        double power = 0;
        for (const Anchor &a : anchors) {
            double distanceSquared = 0;
            for (int d = 0; d < kDimensionCount; ++d) {
                const double delta = m_features[i][d] - m_features[a.row][d];
                distanceSquared += delta * delta;
            }
            const double w = std::exp(-distanceSquared / twoLengthSquared);
            weights += w;
            time += w * a.timeResidual;
            power += w * a.powerResidual;
        }
        out.timeMs[i] *= std::exp(time / weights);
        out.powerW[i] *= std::exp(std::max(0.0, power / weights));
    }
    return out;
}

}  // namespace ptwb
