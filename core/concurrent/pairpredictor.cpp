#include "concurrent/pairpredictor.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ptwb {

namespace {

// Ridge strength of the inference calibration: enough to keep four weights finite from a
// handful of pairs, small next to the features' spread (log times span ~3 units).
constexpr double kRidge = 1e-2;
// Floors of the calibration's spread: a fit through few points looks better than it is.
constexpr double kMinLogTimeSpread = 0.05;
constexpr double kMinPowerSpreadW = 0.5;

template<size_t K>
using Row = std::array<double, K>;

// Least squares with a ridge, by Gaussian elimination on the K x K normal equations.
template<size_t K>
Row<K> solveRidge(const QVector<Row<K>> &x, const QVector<double> &y)
{
    std::array<std::array<double, K + 1>, K> a {};
    for (int i = 0; i < x.size(); ++i) {
        for (size_t r = 0; r < K; ++r) {
            for (size_t c = 0; c < K; ++c)
                a[r][c] += x[i][r] * x[i][c];
            a[r][K] += x[i][r] * y[i];
        }
    }
    for (size_t r = 0; r < K; ++r)
        a[r][r] += kRidge;
    for (size_t col = 0; col < K; ++col) {
        size_t pivot = col;
        for (size_t r = col + 1; r < K; ++r) {
            if (std::abs(a[r][col]) > std::abs(a[pivot][col]))
                pivot = r;
        }
        std::swap(a[col], a[pivot]);
        for (size_t r = 0; r < K; ++r) {
            if (r == col || a[col][col] == 0)
                continue;
            const double f = a[r][col] / a[col][col];
            for (size_t c = col; c <= K; ++c)
                a[r][c] -= f * a[col][c];
        }
    }
    Row<K> w {};
    for (size_t r = 0; r < K; ++r)
        w[r] = a[r][r] == 0 ? 0 : a[r][K] / a[r][r];
    return w;
}

template<size_t K>
double dot(const Row<K> &a, const Row<K> &b)
{
    double sum = 0;
    for (size_t i = 0; i < K; ++i)
        sum += a[i] * b[i];
    return sum;
}

Row<4> timeFeatures(double referenceMs, int batch)
{
    const double lr = std::log(std::max(referenceMs, 1e-3));
    const double lb = std::log2(double(batch));
    return {1.0, lr, lb, lb * lr};
}

Row<3> powerFeatures(double referenceW, int batch)
{
    return {1.0, referenceW, std::log2(double(batch))};
}

// The root mean square of the leave-one-out residuals: what the fit gets wrong on a pair it
// did not see (an in-sample spread through a handful of pairs looks far better than it is).
template<size_t K>
double leaveOneOutSpread(const QVector<Row<K>> &x, const QVector<double> &y)
{
    if (x.size() <= 1)
        return 0;
    double sum = 0;
    for (int out = 0; out < x.size(); ++out) {
        QVector<Row<K>> xs = x;
        QVector<double> ys = y;
        xs.remove(out);
        ys.remove(out);
        sum += std::pow(dot(x[out], solveRidge(xs, ys)) - y[out], 2);
    }
    return std::sqrt(sum / x.size());
}

}  // namespace

PairCost PairPredictions::cost(const ConcurrentData &data, int pair, double sigmas) const
{
    const int mode = data.modeOf(pair);
    return {trainTimeMs[mode] + sigmas * trainTimeStdMs[mode],
            trainPowerW[mode] + sigmas * trainPowerStdW[mode],
            inferTimeMs[pair] + sigmas * inferTimeStdMs[pair],
            inferPowerW[pair] + sigmas * inferPowerStdW[pair], data.batchOf(pair)};
}

namespace {

double normalCdf(double z)
{
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// The chance that a quantity predicted as `margin` above a limit, with spread `sigma`, stays
// at or above it.
double chanceAbove(double margin, double sigma)
{
    if (sigma <= 0)
        return margin >= 0 ? 1.0 : 0.0;
    return normalCdf(margin / sigma);
}

}  // namespace

double PairPredictions::feasibleChance(const ConcurrentProblem &problem, const ConcurrentData &data,
                                       int pair, double sigmas) const
{
    const PairCost c = cost(data, pair, sigmas);
    const int mode = data.modeOf(pair);
    const double cycleS = c.batch / problem.arrivalRate;
    const double inferS = c.inferTimeMs / 1000.0;
    const double inferStdS = inferTimeStdMs[pair] / 1000.0;
    const double power = chanceAbove(problem.powerBudgetW - c.trainPowerW, trainPowerStdW[mode]) *
        chanceAbove(problem.powerBudgetW - c.inferPowerW, inferPowerStdW[pair]);
    // Latency and keeping up both bound the inference time: the tighter one decides.
    const double limitS = std::min(cycleS, problem.latencyBudgetS - cycleS);
    return power * chanceAbove(limitS - inferS, inferStdS);
}

double PairPredictions::optimisticThroughput(const ConcurrentProblem &problem,
                                             const ConcurrentData &data, int pair) const
{
    PairCost c = cost(data, pair);
    const int mode = data.modeOf(pair);
    c.trainTimeMs = std::max(1e-3, c.trainTimeMs - kOptimisticSigmas * trainTimeStdMs[mode]);
    c.inferTimeMs = std::max(0.0, c.inferTimeMs - kOptimisticSigmas * inferTimeStdMs[pair]);
    ConcurrentOutcome outcome = assess(problem, c);
    return outcome.throughput;
}

void PairPredictions::learnTraining(const ConcurrentData &data, int mode)
{
    trainTimeMs[mode] = data.trainTimeMs[mode];
    trainPowerW[mode] = data.trainPowerW[mode];
    trainTimeStdMs[mode] = 0;
    trainPowerStdW[mode] = 0;
}

void PairPredictions::calibrate(const ConcurrentData &data, const QVector<int> &knownPairs)
{
    QVector<Row<4>> xt;
    QVector<Row<3>> xp;
    QVector<double> yt, yp;
    for (int pair : knownPairs) {
        if (!data.isMeasured(pair))
            continue;
        xt.append(timeFeatures(shapeTimeMs[pair], data.batchOf(pair)));
        xp.append(powerFeatures(shapePowerW[pair], data.batchOf(pair)));
        yt.append(std::log(data.inferTimeMs[pair]));
        yp.append(data.inferPowerW[pair]);
    }
    const Row<4> wt = solveRidge(xt, yt);
    const Row<3> wp = solveRidge(xp, yp);
    const double timeSpread = std::max(kMinLogTimeSpread, leaveOneOutSpread(xt, yt));
    const double powerSpread = std::max(kMinPowerSpreadW, leaveOneOutSpread(xp, yp));

    const int pairs = data.pairCount();
    inferTimeMs.resize(pairs);
    inferPowerW.resize(pairs);
    inferTimeStdMs.resize(pairs);
    inferPowerStdW.resize(pairs);
    for (int pair = 0; pair < pairs; ++pair) {
        const int batch = data.batchOf(pair);
        const double time = std::exp(dot(timeFeatures(shapeTimeMs[pair], batch), wt));
        inferTimeMs[pair] = time;
        inferTimeStdMs[pair] = time * timeSpread;
        inferPowerW[pair] = dot(powerFeatures(shapePowerW[pair], batch), wp);
        inferPowerStdW[pair] = powerSpread;
    }
    for (int pair : knownPairs) {
        if (!data.isMeasured(pair))
            continue;
        inferTimeMs[pair] = data.inferTimeMs[pair];
        inferPowerW[pair] = data.inferPowerW[pair];
        inferTimeStdMs[pair] = 0;
        inferPowerStdW[pair] = 0;
    }
}

PairPredictor::PairPredictor(Training training, const ConcurrentContext &context)
    : m_training(training)
    , m_context(context)
{
}

Expected<PowerModel> PairPredictor::trainingModel(const TrainingData &profiled) const
{
    const QString kind = m_context.deviceKind;
    if (m_training == Training::Transfer) {
        if (!m_context.trainingReference)
            return Expected<PowerModel>::failure(
                QStringLiteral("a reference training model is needed"));
        return m_context.trainingReference->transfer(kind, kind, QStringLiteral("target"), profiled,
                                                     m_context.seed, true);
    }
    return PowerModel::train(kind, kind, QStringLiteral("target"), profiled, QStringLiteral("nn"),
                             QStringLiteral("default"), m_context.seed);
}

Expected<PairPredictor::RelativeSpread>
PairPredictor::trainingSpread(const TrainingData &profiled) const
{
    using Result = Expected<RelativeSpread>;
    // A transfer takes milliseconds: leave each profiled mode out once. Training an NN from
    // scratch that often would not; its ensemble's spread is used, within bounds.
    RelativeSpread spread {kDefaultRelativeSpread, kDefaultRelativeSpread};
    if (m_training != Training::Transfer || profiled.size() < kMinModesForLeaveOneOut)
        return spread;
    double time = 0;
    double power = 0;
    for (int out = 0; out < profiled.size(); ++out) {
        QVector<int> rows;
        for (int row = 0; row < profiled.size(); ++row) {
            if (row != out)
                rows.append(row);
        }
        Expected<PowerModel> model = trainingModel(profiled.subset(rows));
        if (!model)
            return passOn<Result>(model);
        const ModePredictions p = model->predict(QVector<PowerMode> {profiled.modes[out]});
        time += std::pow(p.timeMs[0] / profiled.timeMs[out] - 1, 2);
        power += std::pow(p.powerW[0] / profiled.powerW[out] - 1, 2);
    }
    spread.time = std::max(kMinRelativeSpread, std::sqrt(time / profiled.size()));
    spread.power = std::max(kMinRelativeSpread, std::sqrt(power / profiled.size()));
    return spread;
}

Expected<PairPredictions> PairPredictor::fit(const ConcurrentOracle &oracle) const
{
    using Result = Expected<PairPredictions>;
    const ConcurrentData &data = oracle.data();
    QVector<int> profiledModes;
    QVector<int> profiledPairs;
    for (int pair = 0; pair < data.pairCount(); ++pair) {
        if (!oracle.isProfiled(pair) || !data.isMeasured(pair))
            continue;
        profiledPairs.append(pair);
        if (profiledModes.isEmpty() || profiledModes.last() != data.modeOf(pair))
            profiledModes.append(data.modeOf(pair));
    }
    if (profiledPairs.isEmpty())
        return Result::failure(QStringLiteral("nothing profiled to fit to"));

    const TrainingData training = data.training().subset(profiledModes);
    Expected<PowerModel> model = trainingModel(training);
    if (!model)
        return passOn<Result>(model);
    const ModePredictions train = model->predict(data.modes);
    PairPredictions out;
    out.trainTimeMs = train.timeMs;
    out.trainPowerW = train.powerW;
    out.trainTimeStdMs = train.timeStdMs;
    out.trainPowerStdW = train.powerStdW;
    const Expected<RelativeSpread> spread = trainingSpread(training);
    if (!spread)
        return passOn<Result>(spread);
    for (int mode = 0; mode < data.modes.size(); ++mode) {
        out.trainTimeStdMs[mode] = spread->time * out.trainTimeMs[mode];
        out.trainPowerStdW[mode] = spread->power * out.trainPowerW[mode];
    }
    for (int mode : profiledModes)
        out.learnTraining(data, mode);

    // The shape of inference over modes at each batch size.
    const int batches = int(data.batches.size());
    const ModePredictions fromTraining =
        m_context.trainingReference ? m_context.trainingReference->predict(data.modes) : train;
    out.shapeTimeMs.resize(data.pairCount());
    out.shapePowerW.resize(data.pairCount());
    for (int b = 0; b < batches; ++b) {
        const ModePredictions shape =
            b < m_context.inferenceReference.size() && m_context.inferenceReference[b]
            ? m_context.inferenceReference[b]->predict(data.modes)
            : fromTraining;
        for (int mode = 0; mode < data.modes.size(); ++mode) {
            out.shapeTimeMs[data.pairOf(mode, b)] = shape.timeMs[mode];
            out.shapePowerW[data.pairOf(mode, b)] = shape.powerW[mode];
        }
    }
    out.calibrate(data, profiledPairs);
    return out;
}

}  // namespace ptwb
