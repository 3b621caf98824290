#include "concurrent/concurrentstrategy.h"

#include "concurrent/concurrentmodels.h"
#include "concurrent/concurrentsearches.h"

#include <numeric>

namespace ptwb {

QStringList ConcurrentStrategy::names()
{
    return {QStringLiteral("optimal"), QStringLiteral("maxn"), QStringLiteral("gmd"),
            QStringLiteral("bs"),      QStringLiteral("als"),  QStringLiteral("nn"),
            QStringLiteral("pt"),      QStringLiteral("safe")};
}

bool ConcurrentStrategy::needsReference(const QString &name)
{
    return name == QLatin1String("pt") || name == QLatin1String("safe");
}

std::unique_ptr<ConcurrentStrategy> ConcurrentStrategy::create(const QString &name)
{
    if (name == QLatin1String("optimal"))
        return std::make_unique<OptimalConcurrentStrategy>();
    if (name == QLatin1String("maxn"))
        return std::make_unique<MaxnConcurrentStrategy>();
    if (name == QLatin1String("gmd"))
        return std::make_unique<ConcurrentGradientDescent>();
    if (name == QLatin1String("bs"))
        return std::make_unique<ConcurrentBinarySearch>();
    if (name == QLatin1String("als"))
        return std::make_unique<ConcurrentActiveLearning>();
    if (name == QLatin1String("nn"))
        return std::make_unique<ConcurrentModelStrategy>(ConcurrentModelStrategy::Kind::Scratch);
    if (name == QLatin1String("pt"))
        return std::make_unique<ConcurrentModelStrategy>(ConcurrentModelStrategy::Kind::Transfer);
    if (name == QLatin1String("safe"))
        return std::make_unique<ConcurrentModelStrategy>(ConcurrentModelStrategy::Kind::Safe);
    return nullptr;
}

int bestFeasible(const ConcurrentProblem &problem, ConcurrentOracle &oracle,
                 const QVector<int> &pairs)
{
    int best = -1;
    ConcurrentOutcome bestOutcome;
    for (int pair : pairs) {
        const ConcurrentOutcome outcome = assess(problem, oracle.profile(pair));
        if (outcome.feasible() && (best < 0 || isBetter(outcome, bestOutcome))) {
            best = pair;
            bestOutcome = outcome;
        }
    }
    return best;
}

int OptimalConcurrentStrategy::choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle)
{
    QVector<int> pairs(oracle.data().pairCount());
    std::iota(pairs.begin(), pairs.end(), 0);
    return bestFeasible(problem, oracle, pairs);
}

Status MaxnConcurrentStrategy::prepare(ConcurrentOracle &oracle, const ConcurrentContext &)
{
    if (oracle.maxnMode() < 0)
        return Status::failure(QStringLiteral("maxn: the candidates do not include the mode with "
                                              "every knob at its highest"),
                               ErrorKind::BadInput);
    return {};
}

int largestBatchMeetingLatencyAtMaxn(const ConcurrentProblem &problem, ConcurrentOracle &oracle,
                                     int below)
{
    const int maxn = oracle.maxnMode();
    if (maxn < 0)
        return -1;
    for (int b = below - 1; b >= 0; --b) {
        const ConcurrentOutcome outcome =
            assess(problem, oracle.profile(oracle.data().pairOf(maxn, b)));
        if (outcome.keepsUp && outcome.meetsLatency)
            return b;
    }
    return -1;
}

int MaxnConcurrentStrategy::choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle)
{
    const int b =
        largestBatchMeetingLatencyAtMaxn(problem, oracle, int(oracle.data().batches.size()));
    return b < 0 ? -1 : oracle.data().pairOf(oracle.maxnMode(), b);
}

}  // namespace ptwb
