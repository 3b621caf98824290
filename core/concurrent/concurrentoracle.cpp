#include "concurrent/concurrentoracle.h"

#include <cmath>
#include <limits>

namespace ptwb {

ConcurrentOracle::ConcurrentOracle(const ConcurrentData &data)
    : m_data(data)
    , m_profiled(size_t(data.pairCount()), 0)
    , m_prepared(size_t(data.pairCount()), 0)
    , m_stamp(size_t(data.pairCount()), -1)
{
    PowerMode top;
    for (const PowerMode &mode : data.modes) {
        for (Dimension dimension : kAllDimensions)
            top.setValue(dimension, std::max(top.value(dimension), mode.value(dimension)));
    }
    m_maxnMode = int(data.modes.indexOf(top));
}

PairCost ConcurrentOracle::profile(int pair)
{
    const size_t at = size_t(pair);
    if (!m_profiled[at]) {
        m_profiled[at] = 1;
        ++m_profiledCount;
    }
    if (m_stamp[at] != m_problem) {
        m_stamp[at] = m_problem;
        m_problemOwn += m_prepared[at] ? 0 : 1;
    }
    PairCost cost = m_data.cost(pair);
    if (!m_data.isMeasured(pair)) {
        cost.inferTimeMs = std::numeric_limits<double>::infinity();
        cost.inferPowerW = cost.trainPowerW;
    }
    return cost;
}

void ConcurrentOracle::reset()
{
    std::fill(m_profiled.begin(), m_profiled.end(), 0);
    std::fill(m_prepared.begin(), m_prepared.end(), 0);
    std::fill(m_stamp.begin(), m_stamp.end(), -1);
    m_profiledCount = 0;
    m_preparedCount = 0;
    m_problemOwn = 0;
    ++m_problem;
}

void ConcurrentOracle::markPrepared()
{
    m_prepared = m_profiled;
    m_preparedCount = m_profiledCount;
}

void ConcurrentOracle::beginProblem()
{
    ++m_problem;
    m_problemOwn = 0;
}

}  // namespace ptwb
