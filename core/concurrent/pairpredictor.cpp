#include "concurrent/pairpredictor.h"

#include <QSet>

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

template<size_t K>
double residualSpread(const QVector<Row<K>> &x, const QVector<double> &y, const Row<K> &w)
{
    double sum = 0;
    for (int i = 0; i < x.size(); ++i)
        sum += std::pow(dot(x[i], w) - y[i], 2);
    const int dof = std::max(1, int(x.size()) - int(K));
    return std::sqrt(sum / dof);
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
    for (int mode : profiledModes) {
        out.trainTimeMs[mode] = data.trainTimeMs[mode];
        out.trainPowerW[mode] = data.trainPowerW[mode];
        out.trainTimeStdMs[mode] = 0;
        out.trainPowerStdW[mode] = 0;
    }

    // The shape of inference over modes at each batch size.
    const int batches = int(data.batches.size());
    QVector<ModePredictions> shape(batches);
    const ModePredictions fromTraining =
        m_context.trainingReference ? m_context.trainingReference->predict(data.modes) : train;
    for (int b = 0; b < batches; ++b) {
        shape[b] = b < m_context.inferenceReference.size() && m_context.inferenceReference[b]
            ? m_context.inferenceReference[b]->predict(data.modes)
            : fromTraining;
    }

    QVector<Row<4>> xt;
    QVector<Row<3>> xp;
    QVector<double> yt, yp;
    for (int pair : profiledPairs) {
        const int mode = data.modeOf(pair);
        const int b = data.batchIndexOf(pair);
        xt.append(timeFeatures(shape[b].timeMs[mode], data.batches[b]));
        xp.append(powerFeatures(shape[b].powerW[mode], data.batches[b]));
        yt.append(std::log(data.inferTimeMs[pair]));
        yp.append(data.inferPowerW[pair]);
    }
    const Row<4> wt = solveRidge(xt, yt);
    const Row<3> wp = solveRidge(xp, yp);
    const double timeSpread = std::max(kMinLogTimeSpread, residualSpread(xt, yt, wt));
    const double powerSpread = std::max(kMinPowerSpreadW, residualSpread(xp, yp, wp));

    const int pairs = data.pairCount();
    out.inferTimeMs.resize(pairs);
    out.inferPowerW.resize(pairs);
    out.inferTimeStdMs.resize(pairs);
    out.inferPowerStdW.resize(pairs);
    for (int pair = 0; pair < pairs; ++pair) {
        const int mode = data.modeOf(pair);
        const int b = data.batchIndexOf(pair);
        const bool known = oracle.isProfiled(pair) && data.isMeasured(pair);
        const double time = std::exp(dot(timeFeatures(shape[b].timeMs[mode], data.batches[b]), wt));
        out.inferTimeMs[pair] = known ? data.inferTimeMs[pair] : time;
        out.inferTimeStdMs[pair] = known ? 0 : time * timeSpread;
        out.inferPowerW[pair] = known
            ? data.inferPowerW[pair]
            : dot(powerFeatures(shape[b].powerW[mode], data.batches[b]), wp);
        out.inferPowerStdW[pair] = known ? 0 : powerSpread;
    }
    return out;
}

}  // namespace ptwb
