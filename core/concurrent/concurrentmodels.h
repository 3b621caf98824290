#pragma once

#include "concurrent/pairpredictor.h"

#include <random>

namespace ptwb {

// Model-based choice from few profiles (docs/optimization.md, "pt for the concurrent problem").
// prepare profiles kSharedShare of the samples as pairs every problem shares: modes spread by
// power over the reference training model's predicted front (nn: at random), with batch sizes
// taken in turn, plus a few random pairs; then fits a PairPredictor. Each problem then ranks the
// pairs by expected training rate (predicted continuous throughput x the chance that the pair
// is feasible, from the predictions' spread) and profiles down that list, skipping pairs whose
// optimistic throughput cannot beat what it measured, until its own profiles (samples minus the
// shared ones) run out; the answer is the best feasible pair it measured.
// - nn: the training predictor is an NN on the profiled modes alone.
// - pt: PowerTrain transfer of the reference training model.
// - safe: pt, ranking by the predictions kSafetySigmas standard deviations toward slower and
//   hungrier, so that its first tries are more often feasible.
class ConcurrentModelStrategy : public ConcurrentStrategy
{
public:
    enum class Kind { Scratch, Transfer, Safe };
    static constexpr double kSharedShare = 0.55;
    static constexpr double kFrontShare = 0.6;  // of the shared pairs
    static constexpr double kSafetySigmas = 1.0;
    static constexpr double kMinChance = 0.02;  // pairs less likely to be feasible are not tried
    static constexpr double kRateFloor = 1e-3;
    static constexpr double kSecureChance =
        0.9;  // the first try aims at a sure answer  // so n = 0 pairs still rank by their chance

    explicit ConcurrentModelStrategy(Kind kind)
        : m_kind(kind)
    {
    }
    QString name() const override;
    Status prepare(ConcurrentOracle &oracle, const ConcurrentContext &context) override;
    int choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle) override;
    const PairPredictions *predictions() const override { return &m_predicted; }

private:
    // The next pair a problem profiles, or -1; bestThroughput < 0 while nothing feasible is
    // measured.
    int nextTry(const ConcurrentProblem &problem, const ConcurrentData &data,
                const PairPredictions &predicted, const QVector<char> &isKnown, double sigmas,
                double bestThroughput) const;

    Kind m_kind;
    int m_ownProfiles = 0;
    QVector<int> m_shared;  // profiled in prepare, ascending
    PairPredictions m_predicted;
};

// Active learning (our reading of Fulcrum's ALS for the concurrent problem): profile 20 random
// pairs, then repeatedly fit the nn predictor and profile up to 10 pairs of the predicted
// Pareto set over (power, training time, inference time) at each batch size, the most
// uncertain first, until 100 pairs are profiled or the predicted set holds nothing new. Every
// problem is then answered from the profiled pairs alone: reusable Pareto pairs.
class ConcurrentActiveLearning : public ConcurrentStrategy
{
public:
    static constexpr int kInitialPairs = 20;
    static constexpr int kBatch = 10;
    static constexpr int kMaxPairs = 100;

    QString name() const override { return QStringLiteral("als"); }
    Status prepare(ConcurrentOracle &oracle, const ConcurrentContext &context) override;
    int choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle) override;

private:
    QVector<int> m_profiled;
};

}  // namespace ptwb
