#pragma once

#include "concurrent/concurrentdata.h"

#include <vector>

namespace ptwb {

// The pairs a concurrent strategy may choose from and the only way to learn what they cost:
// profiling a pair, which runs the training workload at its mode and the inference workload at
// its mode and batch, and is counted. A pair whose inference was never measured profiles as
// infinitely slow: it can never be an answer.
class ConcurrentOracle
{
public:
    explicit ConcurrentOracle(const ConcurrentData &data);

    const ConcurrentData &data() const { return m_data; }
    PairCost profile(int pair);
    bool isProfiled(int pair) const { return m_profiled[size_t(pair)] != 0; }
    int profiledCount() const { return m_profiledCount; }
    void reset();

    // Per-problem accounting, as for the training problem: what was profiled before the first
    // problem (prepare) informs every problem; beginProblem() starts counting one problem's own.
    void markPrepared();
    void beginProblem();
    int problemProfiledCount() const { return m_preparedCount + m_problemOwn; }

    // The mode with every dimension at its highest value, or -1 when no candidate is.
    int maxnMode() const { return m_maxnMode; }

private:
    const ConcurrentData &m_data;
    std::vector<char> m_profiled;
    std::vector<char> m_prepared;
    std::vector<int> m_stamp;  // the problem that last profiled each pair
    int m_profiledCount = 0;
    int m_preparedCount = 0;
    int m_problem = 0;
    int m_problemOwn = 0;
    int m_maxnMode = -1;
};

}  // namespace ptwb
