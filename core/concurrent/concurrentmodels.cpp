#include "concurrent/concurrentmodels.h"

#include "optimize/paretofront.h"
#include "optimize/strategy.h"

#include <algorithm>
#include <cmath>

namespace ptwb {

namespace {

// Up to `count` distinct modes spread by power over a predicted front: the front's point
// nearest to each of `count` evenly spaced power levels.
QVector<int> modesAlongFront(const QVector<TradeoffPoint> &front, int count)
{
    QVector<int> modes;
    if (front.isEmpty() || count <= 0)
        return modes;
    const double low = front.first().powerW;
    const double high = front.last().powerW;
    for (int i = 0; i < count; ++i) {
        const double level = count == 1 ? high : low + (high - low) * i / (count - 1);
        const auto nearest = std::min_element(
            front.cbegin(), front.cend(), [level](const TradeoffPoint &a, const TradeoffPoint &b) {
                return std::abs(a.powerW - level) < std::abs(b.powerW - level);
            });
        if (!modes.contains(nearest->mode))
            modes.append(nearest->mode);
    }
    return modes;
}

}  // namespace

QString ConcurrentModelStrategy::name() const
{
    switch (m_kind) {
    case Kind::Scratch:
        return QStringLiteral("nn");
    case Kind::Transfer:
        return QStringLiteral("pt");
    case Kind::Safe:
        return QStringLiteral("safe");
    }
    return {};
}

Status ConcurrentModelStrategy::prepare(ConcurrentOracle &oracle, const ConcurrentContext &context)
{
    const ConcurrentData &data = oracle.data();
    std::mt19937_64 rng(context.seed);
    const int shared = std::max(3, int(std::lround(context.samples * kSharedShare)));
    m_ownProfiles = std::max(0, context.samples - shared);
    const bool transfer = m_kind != Kind::Scratch;
    if (transfer && !context.trainingReference)
        return Status::failure(QStringLiteral("%1 needs a reference model").arg(name()));

    QVector<int> modes;
    if (transfer) {
        const ModePredictions reference = context.trainingReference->predict(data.modes);
        QVector<TradeoffPoint> points;
        for (int mode = 0; mode < data.modes.size(); ++mode)
            points.append({mode, reference.powerW[mode], reference.timeMs[mode]});
        modes = modesAlongFront(ParetoFront(points).powerTime(),
                                int(std::lround(shared * kFrontShare)));
    }
    // Batch sizes in turn, in a drawn order, so that the calibration sees several.
    QVector<int> batchOrder = randomRows(int(data.batches.size()), int(data.batches.size()), rng);
    int turn = 0;
    for (int mode : modes)
        oracle.profile(data.pairOf(mode, batchOrder[turn++ % batchOrder.size()]));
    for (int pair : randomRows(data.pairCount(), data.pairCount(), rng)) {
        if (oracle.profiledCount() >= shared)
            break;
        if (!oracle.isProfiled(pair))
            oracle.profile(pair);
    }
    oracle.markPrepared();
    m_shared.clear();
    for (int pair = 0; pair < data.pairCount(); ++pair) {
        if (oracle.isProfiled(pair))
            m_shared.append(pair);
    }

    const PairPredictor predictor(
        transfer ? PairPredictor::Training::Transfer : PairPredictor::Training::Scratch, context);
    Expected<PairPredictions> predicted = predictor.fit(oracle);
    if (!predicted)
        return passOn<Status>(predicted);
    m_predicted = std::move(predicted).value();
    return {};
}

int ConcurrentModelStrategy::choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle)
{
    const ConcurrentData &data = oracle.data();
    const double sigmas = m_kind == Kind::Safe ? kSafetySigmas : 0.0;
    int best = bestFeasible(problem, oracle, m_shared);
    ConcurrentOutcome bestOutcome =
        best >= 0 ? assess(problem, oracle.profile(best)) : ConcurrentOutcome {};
    // This problem's own profiles refine its copy of the predictions as they come in.
    PairPredictions predicted = m_predicted;
    QVector<int> known = m_shared;
    QVector<char> isKnown(data.pairCount(), 0);
    for (int pair : m_shared)
        isKnown[pair] = 1;
    for (int own = 0; own < m_ownProfiles; ++own) {
        const int next = nextTry(problem, data, predicted, isKnown, sigmas,
                                 best >= 0 ? bestOutcome.throughput : -1);
        if (next < 0)
            break;
        const ConcurrentOutcome outcome = assess(problem, oracle.profile(next));
        if (outcome.feasible() && (best < 0 || isBetter(outcome, bestOutcome))) {
            best = next;
            bestOutcome = outcome;
        }
        isKnown[next] = 1;
        known.append(next);
        predicted.learnTraining(data, data.modeOf(next));
        predicted.calibrate(data, known);
    }
    return best;
}

int ConcurrentModelStrategy::nextTry(const ConcurrentProblem &problem, const ConcurrentData &data,
                                     const PairPredictions &predicted, const QVector<char> &isKnown,
                                     double sigmas, double bestThroughput) const
{
    // Until something feasible is measured, the best-ranked pair that is very likely feasible
    // (or the likeliest one); then the best-ranked pair that could beat what was measured.
    // Ranked by expected training rate: predicted continuous throughput x chance of fitting.
    int next = -1;
    double nextScore = -1;
    double nextChance = -1;
    bool nextSecure = false;
    for (int pair = 0; pair < data.pairCount(); ++pair) {
        if (isKnown[pair])
            continue;
        const double chance = predicted.feasibleChance(problem, data, pair, sigmas);
        if (chance < kMinChance)
            continue;
        if (bestThroughput >= 0 &&
            predicted.optimisticThroughput(problem, data, pair) <= bestThroughput)
            continue;  // even its optimistic prediction does not beat what was measured
        const PairCost cost = predicted.cost(data, pair, sigmas);
        const double score =
            (std::max(0.0, continuousThroughput(problem, cost)) + kRateFloor) * chance;
        const bool secure = bestThroughput >= 0 || chance >= kSecureChance;
        const bool better =
            secure != nextSecure ? secure : (secure ? score > nextScore : chance > nextChance);
        if (next < 0 || better) {
            next = pair;
            nextScore = score;
            nextChance = chance;
            nextSecure = secure;
        }
    }
    return next;
}

Status ConcurrentActiveLearning::prepare(ConcurrentOracle &oracle, const ConcurrentContext &context)
{
    const ConcurrentData &data = oracle.data();
    std::mt19937_64 rng(context.seed);
    for (int pair : randomRows(data.pairCount(), kInitialPairs, rng))
        oracle.profile(pair);
    ConcurrentContext scratch = context;
    scratch.trainingReference.reset();
    scratch.inferenceReference.clear();
    const PairPredictor predictor(PairPredictor::Training::Scratch, scratch);
    while (oracle.profiledCount() < kMaxPairs) {
        if (context.cancelled && context.cancelled())
            return Status::failure(QStringLiteral("cancelled"));
        Expected<PairPredictions> predicted = predictor.fit(oracle);
        if (!predicted)
            return passOn<Status>(predicted);
        // The predicted Pareto set at each batch size over (power, training time, inference
        // time), where unprofiled, most uncertain first.
        QVector<std::pair<double, int>> fresh;
        for (int b = 0; b < data.batches.size(); ++b) {
            QVector<int> atBatch;
            for (int mode = 0; mode < data.modes.size(); ++mode)
                atBatch.append(data.pairOf(mode, b));
            for (int pair : atBatch) {
                const PairCost c = predicted->cost(data, pair);
                const double power = std::max(c.trainPowerW, c.inferPowerW);
                const bool dominated =
                    std::any_of(atBatch.cbegin(), atBatch.cend(), [&](int other) {
                        const PairCost o = predicted->cost(data, other);
                        const double otherPower = std::max(o.trainPowerW, o.inferPowerW);
                        return otherPower <= power && o.trainTimeMs <= c.trainTimeMs &&
                            o.inferTimeMs <= c.inferTimeMs &&
                            (otherPower < power || o.trainTimeMs < c.trainTimeMs ||
                             o.inferTimeMs < c.inferTimeMs);
                    });
                if (dominated || oracle.isProfiled(pair))
                    continue;
                const int mode = data.modeOf(pair);
                const double uncertainty =
                    predicted->trainTimeStdMs[mode] / predicted->trainTimeMs[mode] +
                    predicted->inferTimeStdMs[pair] / predicted->inferTimeMs[pair];
                fresh.append({-uncertainty, pair});
            }
        }
        if (fresh.isEmpty())
            break;
        std::sort(fresh.begin(), fresh.end());
        for (int i = 0; i < fresh.size() && i < kBatch && oracle.profiledCount() < kMaxPairs; ++i)
            oracle.profile(fresh[i].second);
    }
    for (int pair = 0; pair < data.pairCount(); ++pair) {
        if (oracle.isProfiled(pair))
            m_profiled.append(pair);
    }
    oracle.markPrepared();
    return {};
}

int ConcurrentActiveLearning::choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle)
{
    return bestFeasible(problem, oracle, m_profiled);
}

}  // namespace ptwb
