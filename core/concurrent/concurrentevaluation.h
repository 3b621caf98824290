#pragma once

#include "concurrent/concurrentstrategy.h"
#include "util/quartiles.h"

#include <optional>

#include <QStringList>

namespace ptwb {

// The (λ, L, P) problems of an evaluation: every combination of the three lists.
struct ConcurrentGrid
{
    QVector<double> arrivalRates;  // requests per second
    QVector<double> latencyBudgetsS;
    QVector<double> powerBudgetsW;

    QVector<ConcurrentProblem> problems() const;

    // "30:120:10" -> 30, 40, ..., 120; "0.5" -> 0.5; "1,1.5,2" -> those. Values must be
    // positive; errors are bad input about `field` and show `example`.
    static Expected<QVector<double>> parseRange(const QString &text, InputField field,
                                                const QString &example);
    // The Fulcrum study's grid: 30..120 requests/s step 10, 0.5..2.0 s step 0.1, 10..50 W.
    static ConcurrentGrid study();
};

// One strategy's answer to one problem of one repeat (`ptwb evaluate-concurrent --picks`).
struct ConcurrentPickRecord
{
    int repeat = 0;
    ConcurrentProblem problem;
    int pair = -1;  // -1: it returned no answer
};

struct ConcurrentMetrics
{
    QString strategy;
    int problems = 0;  // problems with a feasible optimum, over all repeats
    // % below the optimum's training throughput over those problems; an answer that is not
    // feasible on the measured data (or none) delivers nothing and counts as 100 %.
    double throughputShortfallMedian = 0;
    Distribution throughputShortfall;
    double exactlyOptimal = 0;  // % of those problems answered with the optimum's throughput
    double feasibleFound = 0;  // % of those problems answered feasibly
    double violations = 0;  // % of all its answers that break a budget on the measured data
    double profiledPerProblem = 0;  // distinct pairs that answered one problem, median
    double profiled = 0;  // distinct pairs profiled per repeat, mean
    double seconds = 0;  // wall time per repeat, mean
    // nn, pt, safe: mean absolute percentage error of their predictions after the shared
    // pairs, over the pairs (modes for training) they had not profiled; median over repeats.
    struct PredictionError
    {
        double trainTime = 0, trainPower = 0, inferTime = 0, inferPower = 0;
    };
    std::optional<PredictionError> predictionError;
};

struct ConcurrentEvaluationOptions
{
    ConcurrentGrid grid;
    QStringList strategies = ConcurrentStrategy::names();
    int samples = 15;  // pairs per problem for nn, pt and safe
    int repeats = 5;
    quint64 seed = 0;

    bool needsReference() const;
};

// Runs each strategy on every problem of the grid against a measured training + inference pair
// of workloads, and reduces its answers to metrics (docs/optimization.md).
class ConcurrentEvaluator
{
public:
    ConcurrentEvaluator(ConcurrentData target, QString deviceKind,
                        ConcurrentEvaluationOptions options);

    // Reference measurements for pt and safe: a training workload (one row per mode) and,
    // optionally, an inference workload; models are trained on them once per run.
    void setReferences(TrainingData training, QVector<Measurement> inference);
    const ConcurrentData &target() const { return m_target; }
    void setCancelled(std::function<bool()> cancelled) { m_cancelled = std::move(cancelled); }
    void setProgress(std::function<void(int done, int total)> progress)
    {
        m_progress = std::move(progress);
    }
    // Every answer, as it is made.
    void setPickSink(std::function<void(const QString &, const ConcurrentPickRecord &)> sink)
    {
        m_pickSink = std::move(sink);
    }

    Expected<QVector<ConcurrentMetrics>>
    run(const std::function<void(const ConcurrentMetrics &)> &done,
        const std::function<void(const QString &)> &log) const;

private:
    bool isCancelled() const { return m_cancelled && m_cancelled(); }
    Status trainReferences(ConcurrentContext &context,
                           const std::function<void(const QString &)> &log) const;

    ConcurrentData m_target;
    QString m_deviceKind;
    ConcurrentEvaluationOptions m_options;
    TrainingData m_trainingReference;
    QVector<Measurement> m_inferenceReference;
    std::function<bool()> m_cancelled;
    std::function<void(int, int)> m_progress;
    std::function<void(const QString &, const ConcurrentPickRecord &)> m_pickSink;
};

}  // namespace ptwb
