#pragma once

#include "concurrent/concurrentoracle.h"
#include "predict/powermodel.h"

#include <QStringList>

#include <functional>
#include <memory>

namespace ptwb {

struct PairPredictions;

// Everything a concurrent strategy may use besides the oracle.
struct ConcurrentContext
{
    QString deviceKind;
    // pt and safe: a model of a reference training workload, and a reference inference
    // workload measured at the target's batch sizes (one model per batch size, in
    // ConcurrentData::batches order).
    std::shared_ptr<const PowerModel> trainingReference;
    QVector<std::shared_ptr<const PowerModel>> inferenceReference;
    int samples = 15;  // pairs a model-based strategy may profile per problem, shared ones included
    quint64 seed = 0;
    std::function<bool()> cancelled;
};

// One way of choosing a power mode and an inference batch size for a concurrent problem
// (docs/optimization.md, "Concurrent training and inference").
class ConcurrentStrategy
{
public:
    virtual ~ConcurrentStrategy() = default;
    virtual QString name() const = 0;
    // Once per repeat, before any problem: may profile pairs and build models.
    virtual Status prepare(ConcurrentOracle &oracle, const ConcurrentContext &context)
    {
        return {};
    }
    // The pair chosen for one problem, or -1 when the strategy found nothing it believes
    // feasible. May profile more pairs.
    virtual int choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle) = 0;
    // A model-based strategy's predictions after prepare (for their accuracy); else null.
    virtual const PairPredictions *predictions() const { return nullptr; }

    // optimal, maxn, gmd, bs, als, nn, pt, safe.
    static QStringList names();
    static std::unique_ptr<ConcurrentStrategy> create(const QString &name);
    // Strategies that start from reference models.
    static bool needsReference(const QString &name);
};

// Of `pairs`, profiled one by one, the best by the problem's order; -1 when none is feasible.
int bestFeasible(const ConcurrentProblem &problem, ConcurrentOracle &oracle,
                 const QVector<int> &pairs);

// Ground truth: every pair profiled, the best feasible one.
class OptimalConcurrentStrategy : public ConcurrentStrategy
{
public:
    QString name() const override { return QStringLiteral("optimal"); }
    int choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle) override;
};

// MAXN with the largest batch that keeps up and meets the latency there (at most one profile
// per batch size); the power budget is not looked at.
class MaxnConcurrentStrategy : public ConcurrentStrategy
{
public:
    QString name() const override { return QStringLiteral("maxn"); }
    Status prepare(ConcurrentOracle &oracle, const ConcurrentContext &context) override;
    int choose(const ConcurrentProblem &problem, ConcurrentOracle &oracle) override;
};

// The largest batch index below `below` whose pair at MAXN keeps up and meets the latency,
// profiling MAXN at each size tried; -1 when none does. The searches fix the batch this way
// (the fastest mode is where a batch has its best chance) and backtrack to smaller ones.
int largestBatchMeetingLatencyAtMaxn(const ConcurrentProblem &problem, ConcurrentOracle &oracle,
                                     int below);

}  // namespace ptwb
