#include "optimize/modelstrategies.h"

#include "optimize/activeselection.h"
#include "predict/residualcorrection.h"

#include <algorithm>
#include <cmath>

namespace ptwb {

namespace {

TrainingData observedSubset(const ProfilingOracle &oracle, const QList<int> &rows)
{
    TrainingData data = oracle.candidates().subset(QVector<int>(rows.begin(), rows.end()));
    data.ids.clear();
    return data;
}

// Predicted (power + margin, time) for every candidate, observed values for profiled ones;
// predictions are first corrected near the profiled modes when a correction is given.
QVector<TradeoffPoint> hybridPoints(const ProfilingOracle &oracle, const ModePredictions &raw,
                                    double sigmas, const ResidualCorrection *correction = nullptr)
{
    const TrainingData &candidates = oracle.candidates();
    ModePredictions predicted;
    if (correction) {
        QVector<int> rows;
        QVector<double> times;
        QVector<double> powers;
        for (int row : oracle.profiled()) {
            rows.append(row);
            times.append(candidates.timeMs[row]);
            powers.append(candidates.powerW[row]);
        }
        predicted = correction->apply(raw, rows, times, powers);
    } else {
        predicted = raw;
    }
    QVector<TradeoffPoint> points;
    points.reserve(candidates.size());
    for (int row = 0; row < candidates.size(); ++row) {
        if (oracle.profiled().contains(row)) {
            points.append({row, candidates.powerW[row], candidates.timeMs[row]});
        } else {
            const double power = predicted.powerW[row] + sigmas * predicted.powerStdW[row];
            points.append({row, power, predicted.timeMs[row]});
        }
    }
    return points;
}

}  // namespace

QString ModelStrategy::name() const
{
    switch (m_kind) {
    case Kind::Scratch:
        return QStringLiteral("nn");
    case Kind::Transfer:
        return QStringLiteral("pt");
    case Kind::SafeTransfer:
        return QStringLiteral("safe");
    }
    return {};
}

static QList<int> sortedProfiled(const ProfilingOracle &oracle)
{
    QList<int> rows = oracle.profiled().values();
    std::sort(rows.begin(), rows.end());  // QSet's order changes from run to run
    return rows;
}

// Profiles up to `count` modes of a front, one per budget level: the levels are spread evenly
// over the front's power range, and for each the front mode a budget at that level would pick
// (the fastest within it) is profiled, or the closest above when those are all profiled.
// Spreading by power rather than by position on the front puts a verified mode under every
// stretch of budgets: a front is dense where many modes draw nearly the same power and sparse
// elsewhere (docs/optimization.md, "Where the choice error comes from").
static void profileAlong(ProfilingOracle &oracle, const QVector<TradeoffPoint> &front, int count)
{
    if (front.isEmpty() || count <= 0)
        return;
    const double low = front.first().powerW;
    const double high = front.last().powerW;
    for (int k = 0; k < count; ++k) {
        const double level = low + (k + 0.5) * (high - low) / count;
        int within = -1;
        int above = -1;
        for (const TradeoffPoint &p : front) {  // ascending power
            if (oracle.profiled().contains(p.mode))
                continue;
            if (p.powerW <= level) {
                within = p.mode;
            } else {
                above = p.mode;
                break;
            }
        }
        if (within < 0 && above < 0)
            return;  // every front mode is profiled
        oracle.profile(within >= 0 ? within : above);
    }
}

Status ModelStrategy::profileGuided(ProfilingOracle &oracle, const StrategyContext &context,
                                    std::mt19937_64 &rng)
{
    const int total = context.samples;
    m_correction.emplace(oracle.candidates().modes);
    const ModePredictions reference = context.reference->predict(oracle.candidates().modes);
    profileAlong(oracle, ParetoFront(hybridPoints(oracle, reference, 0)).powerTime(),
                 int(total * kReferenceFrontShare));
    const int firstStage = std::max(3, int(total * (kReferenceFrontShare + kRandomShare)));
    for (int row : randomRows(oracle.candidates().size(), oracle.candidates().size(), rng)) {
        if (oracle.profiledCount() >= firstStage)
            break;
        oracle.profile(row);
    }
    for (int round = 0;; ++round) {
        Expected<PowerModel> model = context.reference->transfer(
            context.deviceKind, context.deviceKind, QStringLiteral("target"),
            observedSubset(oracle, sortedProfiled(oracle)), context.seed, true);
        if (!model)
            return passOn<Status>(model);
        m_model.emplace(std::move(model).value());
        const int remaining = total - oracle.profiledCount();
        if (round == kActiveRounds || remaining <= 0)
            return {};
        const ModePredictions predicted = m_model->predict(oracle.candidates().modes);
        const int batch = (remaining + (kActiveRounds - round) - 1) / (kActiveRounds - round);
        profileAlong(
            oracle, ParetoFront(hybridPoints(oracle, predicted, 0, correctionOrNull())).powerTime(),
            batch);
    }
}

Status ModelStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &context)
{
    std::mt19937_64 rng(context.seed);
    if (m_kind == Kind::Scratch) {
        for (int row : randomRows(oracle.candidates().size(), context.samples, rng))
            oracle.profile(row);
        Expected<PowerModel> model =
            PowerModel::train(context.deviceKind, context.deviceKind, QStringLiteral("target"),
                              observedSubset(oracle, sortedProfiled(oracle)), QStringLiteral("nn"),
                              QStringLiteral("default"), context.seed);
        if (!model)
            return passOn<Status>(model);
        m_model.emplace(std::move(model).value());
    } else {
        if (!context.reference)
            return Status::failure(QStringLiteral("%1 needs a reference model").arg(name()));
        if (Status status = profileGuided(oracle, context, rng); !status)
            return status;
    }
    const ModePredictions predicted = m_model->predict(oracle.candidates().modes);
    m_front = ParetoFront(hybridPoints(
        oracle, predicted, m_kind == Kind::SafeTransfer ? kSafetySigmas : 0, correctionOrNull()));
    return {};
}

Pick ModelStrategy::choose(double powerBudgetW, ProfilingOracle &)
{
    return pickFrom(m_front.fastestWithin(powerBudgetW));
}

Status ActiveLearningStrategy::prepare(ProfilingOracle &oracle, const StrategyContext &context)
{
    std::mt19937_64 rng(context.seed);
    for (int row : randomRows(oracle.candidates().size(), kInitialModes, rng))
        oracle.profile(row);
    while (oracle.profiledCount() < kMaxModes) {
        const QList<int> rows = sortedProfiled(oracle);
        TrainingData measured = oracle.candidates().subset(QVector<int>(rows.begin(), rows.end()));
        const int room = std::min(kBatch, kMaxModes - oracle.profiledCount());
        Expected<QVector<PowerMode>> next =
            ActiveSelection::next(context.deviceKind, measured, oracle.candidates().modes, {}, room,
                                  context.seed + rows.size());
        if (!next)
            return passOn<Status>(next);
        if (next->isEmpty())
            break;
        for (const PowerMode &mode : *next)
            oracle.profile(oracle.rowOf(mode));
    }
    QVector<TradeoffPoint> observed;
    for (int row : sortedProfiled(oracle))
        observed.append({row, oracle.candidates().powerW[row], oracle.candidates().timeMs[row]});
    m_front = ParetoFront(observed);
    return {};
}

Pick ActiveLearningStrategy::choose(double powerBudgetW, ProfilingOracle &)
{
    return pickFrom(m_front.fastestWithin(powerBudgetW));
}

}  // namespace ptwb
