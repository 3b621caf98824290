#include "optimize/strategy.h"

#include "optimize/gridsearches.h"
#include "optimize/modelstrategies.h"
#include "optimize/searchstrategies.h"
#include "optimize/transfersearch.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ptwb {

ProfilingOracle::ProfilingOracle(const TrainingData &target)
    : m_target(target)
{
    for (int row = 0; row < target.size(); ++row) {
        const PowerMode &mode = target.modes[row];
        m_rows.insert(mode, row);
        for (Dimension dimension : kAllDimensions) {
            QVector<qint64> &values = m_values[static_cast<int>(dimension)];
            const qint64 value = mode.value(dimension);
            const auto it = std::lower_bound(values.begin(), values.end(), value);
            if (it == values.end() || *it != value)
                values.insert(it, value);
        }
    }
}

int ProfilingOracle::budgetProfiledCount() const
{
    int own = 0;
    for (int row : m_budget)
        own += m_prepared.contains(row) ? 0 : 1;
    return int(m_prepared.size()) + own;
}

TradeoffPoint ProfilingOracle::profile(int row)
{
    if (std::isnan(m_target.powerW[row]) || std::isnan(m_target.timeMs[row]))
        throw ProfileNeeded {row};
    m_profiled.insert(row);
    m_budget.insert(row);
    ++m_calls;
    return {row, m_target.powerW[row], m_target.timeMs[row]};
}

QVector<int> randomRows(int candidates, int count, std::mt19937_64 &rng)
{
    QVector<int> rows(candidates);
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng);
    rows.resize(std::min(count, candidates));
    return rows;
}

QStringList Strategy::names()
{
    return {QStringLiteral("optimal"), QStringLiteral("maxn"), QStringLiteral("nvp"),
            QStringLiteral("rnd"),     QStringLiteral("nn"),   QStringLiteral("pt"),
            QStringLiteral("safe"),    QStringLiteral("bs"),   QStringLiteral("gmd"),
            QStringLiteral("als"),     QStringLiteral("pts")};
}

std::unique_ptr<Strategy> Strategy::create(const QString &name)
{
    if (name == QLatin1String("optimal"))
        return std::make_unique<OptimalStrategy>();
    if (name == QLatin1String("maxn"))
        return std::make_unique<MaxnStrategy>();
    if (name == QLatin1String("nvp"))
        return std::make_unique<PresetStrategy>();
    if (name == QLatin1String("rnd"))
        return std::make_unique<RandomStrategy>();
    if (name == QLatin1String("nn"))
        return std::make_unique<ModelStrategy>(ModelStrategy::Kind::Scratch);
    if (name == QLatin1String("pt"))
        return std::make_unique<ModelStrategy>(ModelStrategy::Kind::Transfer);
    if (name == QLatin1String("safe"))
        return std::make_unique<ModelStrategy>(ModelStrategy::Kind::SafeTransfer);
    if (name == QLatin1String("bs"))
        return std::make_unique<BinarySearchStrategy>();
    if (name == QLatin1String("gmd"))
        return std::make_unique<GradientDescentStrategy>();
    if (name == QLatin1String("als"))
        return std::make_unique<ActiveLearningStrategy>();
    if (name == QLatin1String("pts"))
        return std::make_unique<TransferSearchStrategy>();
    return nullptr;
}

}  // namespace ptwb
