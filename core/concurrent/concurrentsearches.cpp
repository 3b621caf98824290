#include "concurrent/concurrentsearches.h"

#include "optimize/gridsearches.h"

#include <algorithm>

namespace ptwb {

namespace {

// A mode that breaks the latency or cannot keep up costs this much more than any that does,
// so a search moves toward faster modes first (its slope there is steep).
constexpr double kLatencyPenaltyMs = 1e7;

// The modes at one batch size as a training-style problem: power max(pT, pI), time the
// milliseconds of cycle each training minibatch costs.
TrainingData modesAtBatch(const ConcurrentProblem &problem, const ConcurrentData &data,
                          int batchIndex)
{
    TrainingData view;
    view.modes = data.modes;
    view.timeMs.reserve(data.modes.size());
    view.powerW.reserve(data.modes.size());
    for (int mode = 0; mode < data.modes.size(); ++mode) {
        const int pair = data.pairOf(mode, batchIndex);
        PairCost cost = data.cost(pair);
        if (!data.isMeasured(pair)) {
            view.timeMs.append(kLatencyPenaltyMs * 10);
            view.powerW.append(cost.trainPowerW);
            continue;
        }
        const ConcurrentOutcome outcome = assess(problem, cost);
        const double rate = continuousThroughput(problem, cost);
        const bool usable = outcome.keepsUp && outcome.meetsLatency && rate > 0;
        view.timeMs.append(usable ? 1000.0 / rate : kLatencyPenaltyMs + cost.inferTimeMs);
        view.powerW.append(outcome.powerW);
    }
    return view;
}

}  // namespace

int searchModesAtBatch(Strategy &search, const ConcurrentProblem &problem, ConcurrentOracle &oracle,
                       int batchIndex)
{
    const TrainingData view = modesAtBatch(problem, oracle.data(), batchIndex);
    ProfilingOracle modes(view);
    search.choose(problem.powerBudgetW, modes);
    QVector<int> pairs;
    for (int row : modes.profiled())
        pairs.append(oracle.data().pairOf(row, batchIndex));
    std::sort(pairs.begin(), pairs.end());  // a deterministic answer among equals
    return bestFeasible(problem, oracle, pairs);
}

int ConcurrentGradientDescent::choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle)
{
    const ConcurrentData &data = oracle.data();
    if (oracle.maxnMode() < 0)
        return -1;
    for (int b = int(data.batches.size()) - 1; b >= 0; --b) {
        if (oracle.problemProfiledCount() >= kMaxProfiles)
            break;
        const ConcurrentOutcome atMaxn =
            assess(problem, oracle.profile(data.pairOf(oracle.maxnMode(), b)));
        if (!atMaxn.keepsUp || !atMaxn.meetsLatency)
            continue;  // too large a batch for this latency even at the fastest mode
        const int left = kMaxProfiles - oracle.problemProfiledCount();
        GradientDescentStrategy search(std::min(left, GradientDescentStrategy::kMaxProfiles));
        const int pair = searchModesAtBatch(search, problem, oracle, b);
        if (pair >= 0)
            return pair;
    }
    return -1;
}

int ConcurrentBinarySearch::choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle)
{
    QVector<int> candidates;  // batch indices meeting the latency at MAXN, ascending
    for (int b =
             largestBatchMeetingLatencyAtMaxn(problem, oracle, int(oracle.data().batches.size()));
         b >= 0; b = largestBatchMeetingLatencyAtMaxn(problem, oracle, b))
        candidates.prepend(b);
    int low = 0;
    int high = int(candidates.size()) - 1;
    int best = -1;
    ConcurrentOutcome bestOutcome;
    while (low <= high) {
        const int middle = (low + high + 1) / 2;
        BinarySearchStrategy search;
        const int pair = searchModesAtBatch(search, problem, oracle, candidates[middle]);
        if (pair < 0) {
            high = middle - 1;
            continue;
        }
        const ConcurrentOutcome outcome = assess(problem, oracle.profile(pair));
        if (best < 0 || isBetter(outcome, bestOutcome)) {
            best = pair;
            bestOutcome = outcome;
        }
        low = middle + 1;
    }
    return best;
}

}  // namespace ptwb
