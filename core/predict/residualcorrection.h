#pragma once

#include "modes/powermode.h"
#include "predict/powermodel.h"

#include <QVector>

#include <array>
#include <vector>

namespace ptwb {

// Corrects a model's predictions near the modes that were profiled. The model is fitted to all
// profiled modes at once and keeps a few percent of error that varies smoothly across the mode
// space; near a profiled mode, that mode's own error is the best guess. Each candidate's
// predicted time and power are scaled by a kernel-weighted mean of the profiled modes' log
// residuals (log observed/predicted), shrunk toward zero by a prior weight:
//
//   c(x) = sum_i w_i(x) r_i / (kPriorWeight + sum_i w_i(x)),
//   w_i(x) = exp(-|x - x_i|^2 / (2 kLengthScale^2))
//
// with x the mode's log features scaled to [0, 1] per dimension over the candidates. Time is
// scaled by exp(c); power by exp(max(0, c)) only: a power budget is a limit, so a neighbour that
// drew more than predicted is a warning, and one that drew less is no promise (lowering power
// too put picks over budget: A/L+1 14.7 % instead of 7.1 % in the reverse transfer). Far from
// every profiled mode the weights vanish and the prediction is left as it is. On the shared
// data this took pt's median time penalty from 1.25-1.74 % to 0.39-0.90 % over four seeds
// (docs/benchmarks.md).
class ResidualCorrection
{
public:
    static constexpr double kLengthScale = 0.1;
    static constexpr double kPriorWeight = 0.3;

    explicit ResidualCorrection(const QVector<PowerMode> &candidates);

    // `predicted` covers every candidate; `rows` are profiled candidates with their observed
    // values. Rows whose prediction or observation is not positive and finite are ignored.
    ModePredictions apply(const ModePredictions &predicted, const QVector<int> &rows,
                          const QVector<double> &observedTimeMs,
                          const QVector<double> &observedPowerW) const;

private:
    std::vector<std::array<double, kDimensionCount>> m_features;
};

}  // namespace ptwb
