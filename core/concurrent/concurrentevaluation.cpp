#include "concurrent/concurrentevaluation.h"

#include "concurrent/pairpredictor.h"
#include "util/numberrange.h"

#include <QElapsedTimer>
#include <QHash>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ptwb {

namespace {

// The reference batch size nearest to `batch` on a log scale.
int nearestBatch(const QList<int> &available, int batch)
{
    return *std::min_element(available.cbegin(), available.cend(), [batch](int a, int b) {
        return std::abs(std::log2(double(a) / batch)) < std::abs(std::log2(double(b) / batch));
    });
}

// How far a strategy's predictions are from the measured values on what it did not profile.
ConcurrentMetrics::PredictionError predictionError(const ConcurrentData &data,
                                                   const PairPredictions &predicted,
                                                   const ConcurrentOracle &oracle)
{
    const auto ape = [](double p, double t) { return std::abs(p / t - 1) * 100; };
    QVector<double> trainTime, trainPower, inferTime, inferPower;
    QVector<bool> modeProfiled(data.modes.size(), false);
    for (int pair = 0; pair < data.pairCount(); ++pair)
        modeProfiled[data.modeOf(pair)] |= oracle.isProfiled(pair);
    for (int mode = 0; mode < data.modes.size(); ++mode) {
        if (modeProfiled[mode])
            continue;
        trainTime.append(ape(predicted.trainTimeMs[mode], data.trainTimeMs[mode]));
        trainPower.append(ape(predicted.trainPowerW[mode], data.trainPowerW[mode]));
    }
    for (int pair = 0; pair < data.pairCount(); ++pair) {
        if (oracle.isProfiled(pair) || !data.isMeasured(pair))
            continue;
        inferTime.append(ape(predicted.inferTimeMs[pair], data.inferTimeMs[pair]));
        inferPower.append(ape(predicted.inferPowerW[pair], data.inferPowerW[pair]));
    }
    const auto mean = [](const QVector<double> &v) {
        return v.isEmpty() ? 0.0 : std::accumulate(v.cbegin(), v.cend(), 0.0) / v.size();
    };
    return {mean(trainTime), mean(trainPower), mean(inferTime), mean(inferPower)};
}

double percentOf(int part, int whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

}  // namespace

QVector<ConcurrentProblem> ConcurrentGrid::problems() const
{
    QVector<ConcurrentProblem> out;
    for (double rate : arrivalRates) {
        for (double latency : latencyBudgetsS) {
            for (double power : powerBudgetsW)
                out.append({rate, latency, power});
        }
    }
    return out;
}

Expected<QVector<double>> ConcurrentGrid::parseRange(const QString &text, InputField field,
                                                     const QString &example)
{
    return parseNumberRange(text, field, example);
}

ConcurrentGrid ConcurrentGrid::study()
{
    ConcurrentGrid grid;
    grid.arrivalRates = parseRange(QStringLiteral("30:120:10"), InputField::None, {}).value();
    grid.latencyBudgetsS = parseRange(QStringLiteral("0.5:2.0:0.1"), InputField::None, {}).value();
    grid.powerBudgetsW = parseRange(QStringLiteral("10:50:1"), InputField::None, {}).value();
    return grid;
}

bool ConcurrentEvaluationOptions::needsReference() const
{
    return std::any_of(strategies.cbegin(), strategies.cend(), ConcurrentStrategy::needsReference);
}

ConcurrentEvaluator::ConcurrentEvaluator(ConcurrentData target, QString deviceKind,
                                         ConcurrentEvaluationOptions options)
    : m_target(std::move(target))
    , m_deviceKind(std::move(deviceKind))
    , m_options(std::move(options))
{
}

void ConcurrentEvaluator::setReferences(TrainingData training, QVector<Measurement> inference)
{
    m_trainingReference = std::move(training);
    m_inferenceReference = std::move(inference);
}

Status ConcurrentEvaluator::trainReferences(ConcurrentContext &context,
                                            const std::function<void(const QString &)> &log) const
{
    QElapsedTimer timer;
    timer.start();
    TrainingCallbacks callbacks;
    callbacks.cancelled = m_cancelled;
    const auto train = [&](const TrainingData &data) {
        return PowerModel::train(m_deviceKind, m_deviceKind, QStringLiteral("reference"), data,
                                 QStringLiteral("reference"), QStringLiteral("default"), 1,
                                 callbacks);
    };
    Expected<PowerModel> training = train(m_trainingReference);
    if (!training)
        return passOn<Status>(training);
    context.trainingReference = std::make_shared<PowerModel>(std::move(training).value());

    // Each batch size of the reference inference workload, as one row per mode to train on.
    QHash<int, QVector<Measurement>> byBatch;
    for (Measurement m : m_inferenceReference) {
        const int batch = m.inferenceBatch;
        m.inferenceBatch = 0;
        byBatch[batch].append(m);
    }
    QHash<int, std::shared_ptr<const PowerModel>> models;
    for (int batch : m_target.batches) {
        if (byBatch.isEmpty())
            break;
        const int nearest = nearestBatch(byBatch.keys(), batch);
        if (!models.contains(nearest)) {
            const Expected<TrainingData> rows = TrainingData::fromMeasurements(
                byBatch[nearest], QStringLiteral("the reference inference workload"));
            if (!rows)
                return passOn<Status>(rows);
            Expected<PowerModel> model = train(*rows);
            if (!model)
                return passOn<Status>(model);
            models.insert(nearest, std::make_shared<PowerModel>(std::move(model).value()));
        }
        context.inferenceReference.append(models[nearest]);
    }
    if (log)
        log(QStringLiteral("reference models: %1 s").arg(timer.elapsed() / 1000.0, 0, 'f', 2));
    return {};
}

Expected<QVector<ConcurrentMetrics>>
ConcurrentEvaluator::run(const std::function<void(const ConcurrentMetrics &)> &done,
                         const std::function<void(const QString &)> &log) const
{
    using Result = Expected<QVector<ConcurrentMetrics>>;
    for (const QString &name : m_options.strategies) {
        if (!ConcurrentStrategy::create(name))
            return Result::badInput(
                InputField::Strategies,
                QStringLiteral("unknown strategy '%1'; expected some of %2")
                    .arg(name, ConcurrentStrategy::names().join(QLatin1Char(','))));
    }
    if (m_options.samples < 3 || m_options.samples >= m_target.pairCount())
        return Result::badInput(InputField::Samples,
                                QStringLiteral("%1 is not between 3 and %2")
                                    .arg(m_options.samples)
                                    .arg(m_target.pairCount() - 1));
    const auto cancelled = [] { return Result::failure(QStringLiteral("evaluation cancelled")); };

    // The ground truth of every problem.
    const QVector<ConcurrentProblem> problems = m_options.grid.problems();
    QVector<ConcurrentOutcome> optimum;
    {
        ConcurrentOracle truth(m_target);
        OptimalConcurrentStrategy optimal;
        for (const ConcurrentProblem &problem : problems) {
            const int pair = optimal.choose(problem, truth);
            optimum.append(pair < 0 ? ConcurrentOutcome {} : assess(problem, m_target.cost(pair)));
        }
    }

    ConcurrentContext context;
    context.deviceKind = m_deviceKind;
    context.samples = m_options.samples;
    context.cancelled = m_cancelled;
    if (m_options.needsReference()) {
        if (Status status = trainReferences(context, log); !status)
            return isCancelled() ? cancelled() : passOn<Result>(status);
    }

    QVector<ConcurrentMetrics> results;
    const int steps = int(m_options.strategies.size()) * m_options.repeats;
    int step = 0;
    for (const QString &name : m_options.strategies) {
        QVector<double> shortfalls;
        QVector<double> perProblem;
        int solvable = 0, found = 0, optimal = 0, answers = 0, violating = 0;
        double profiled = 0;
        QVector<ConcurrentMetrics::PredictionError> errors;
        QElapsedTimer timer;
        timer.start();
        for (int repeat = 0; repeat < m_options.repeats; ++repeat) {
            if (isCancelled())
                return cancelled();
            std::unique_ptr<ConcurrentStrategy> strategy = ConcurrentStrategy::create(name);
            ConcurrentOracle oracle(m_target);
            context.seed = m_options.seed * 1000003 + repeat;
            if (Status status = strategy->prepare(oracle, context); !status)
                return Result::failure(QStringLiteral("%1: %2").arg(name, status.error()),
                                       status.errorKind());
            oracle.markPrepared();
            if (const PairPredictions *predicted = strategy->predictions())
                errors.append(predictionError(m_target, *predicted, oracle));
            for (int i = 0; i < problems.size(); ++i) {
                oracle.beginProblem();
                const int pair = strategy->choose(problems[i], oracle);
                perProblem.append(oracle.problemProfiledCount());
                if (m_pickSink)
                    m_pickSink(name, {repeat, problems[i], pair});
                const ConcurrentOutcome got =
                    pair < 0 ? ConcurrentOutcome {} : assess(problems[i], m_target.cost(pair));
                answers += pair >= 0 ? 1 : 0;
                violating += pair >= 0 && !got.feasible() ? 1 : 0;
                if (!optimum[i].feasible())
                    continue;
                ++solvable;
                found += got.feasible() ? 1 : 0;
                const double best = optimum[i].throughput;
                const double shortfall = !got.feasible() ? 100.0
                    : best > 0                           ? 100.0 * (best - got.throughput) / best
                                                         : 0.0;
                optimal += got.feasible() && got.throughput >= best ? 1 : 0;
                shortfalls.append(std::max(0.0, shortfall));
            }
            profiled += oracle.profiledCount();
            if (m_progress)
                m_progress(++step, steps);
        }
        ConcurrentMetrics metrics;
        metrics.strategy = name;
        metrics.problems = solvable;
        metrics.throughputShortfall = Distribution::of(shortfalls);
        metrics.throughputShortfallMedian = Quartiles::of(shortfalls).median;
        metrics.exactlyOptimal = percentOf(optimal, solvable);
        metrics.feasibleFound = percentOf(found, solvable);
        metrics.violations = percentOf(violating, answers);
        metrics.profiledPerProblem = Quartiles::of(perProblem).median;
        metrics.profiled = profiled / m_options.repeats;
        metrics.seconds = timer.nsecsElapsed() / 1e9 / m_options.repeats;
        if (!errors.isEmpty()) {
            const auto median = [&errors](double ConcurrentMetrics::PredictionError::*field) {
                QVector<double> values;
                for (const auto &e : errors)
                    values.append(e.*field);
                return Quartiles::of(values).median;
            };
            using E = ConcurrentMetrics::PredictionError;
            metrics.predictionError = E {median(&E::trainTime), median(&E::trainPower),
                                         median(&E::inferTime), median(&E::inferPower)};
        }
        results.append(metrics);
        if (done)
            done(metrics);
    }
    return results;
}

}  // namespace ptwb
