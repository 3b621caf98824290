#include "batch/batchevaluation.h"

#include "optimize/paretofront.h"
#include "optimize/strategy.h"
#include "predict/powermodel.h"
#include "util/quartiles.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace ptwb {

namespace {

const QString kOracle = QStringLiteral("oracle");
const QString kLargest = QStringLiteral("largest");
const QString kProxy = QStringLiteral("proxy");
const QString kTransfer = QStringLiteral("pt");
const QString kObserved = QStringLiteral("observed");

double percentOf(int part, int whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

// The truth's row of each mode, per batch (the index of BatchTruth::batches).
class TruthIndex
{
public:
    explicit TruthIndex(const BatchTruth &truth)
        : m_truth(truth)
    {
        for (const BatchCandidates &batch : truth.batches) {
            QHash<PowerMode, int> rows;
            for (int row = 0; row < batch.modes.size(); ++row)
                rows.insert(batch.modes[row], row);
            m_rows.append(rows);
        }
    }

    // The pick as it really is: measured time and peak, true samples.
    std::optional<BatchPick> truly(const BatchPick &pick) const
    {
        for (int i = 0; i < m_truth.batches.size(); ++i) {
            if (m_truth.batches[i].batch != pick.batch)
                continue;
            const auto row = m_rows[i].constFind(pick.mode);
            if (row == m_rows[i].cend())
                return std::nullopt;
            return BatchChoice::pickOf(m_truth.batches[i], *row, m_truth.samples);
        }
        return std::nullopt;
    }

private:
    const BatchTruth &m_truth;
    QVector<QHash<PowerMode, int>> m_rows;
};

// The study's practice at one batch: cores, CPU and memory at their highest, the highest GPU
// clock whose peak fits (or, when none does, the lowest-peak of those modes).
std::optional<int> gpuCappedRow(const BatchCandidates &batch, double capW)
{
    int cores = 0;
    qint64 cpu = 0;
    qint64 emc = 0;
    for (const PowerMode &mode : batch.modes) {
        cores = std::max(cores, mode.cores);
        cpu = std::max(cpu, mode.cpuKHz);
        emc = std::max(emc, mode.emcHz);
    }
    std::optional<int> fits;
    std::optional<int> lowest;
    for (int row = 0; row < batch.modes.size(); ++row) {
        const PowerMode &mode = batch.modes[row];
        if (mode.cores != cores || mode.cpuKHz != cpu || mode.emcHz != emc)
            continue;
        if (!lowest || batch.peakAt(row) < batch.peakAt(*lowest))
            lowest = row;
        if (batch.peakAt(row) <= capW && (!fits || mode.gpuHz > batch.modes[*fits].gpuHz))
            fits = row;
    }
    return fits ? fits : lowest;
}

std::optional<BatchPick> largestPick(const BatchTruth &truth, const ConvergenceRelation &samples,
                                     double capW)
{
    if (truth.batches.isEmpty())
        return std::nullopt;
    const BatchCandidates &largest = truth.batches.last();
    const std::optional<int> row = gpuCappedRow(largest, capW);
    if (!row)
        return std::nullopt;
    return BatchChoice::pickOf(largest, *row, samples);
}

// The largest batch's GPU-capped mode, at the batch size the proxy samples make fastest there
// (among those whose measured peak in that mode fits, when any does).
std::optional<BatchPick> proxyPick(const BatchTruth &truth, const ConvergenceRelation &samples,
                                   double capW, AccuracyObjective objective)
{
    const std::optional<BatchPick> largest = largestPick(truth, samples, capW);
    if (!largest)
        return std::nullopt;
    std::optional<BatchPick> best;
    bool bestFits = false;
    for (const BatchCandidates &batch : truth.batches) {
        const int row = int(batch.modes.indexOf(largest->mode));
        if (row < 0)
            continue;
        const BatchPick pick = BatchChoice::pickOf(batch, row, samples);
        const bool fits = pick.peakW <= capW;
        if (!best || (fits && !bestFits) ||
            (fits == bestFits && pick.cost(objective) < best->cost(objective))) {
            best = pick;
            bestFits = fits;
        }
    }
    return best;
}

// Ours, once per repeat: per batch, `samples` random modes profiled (measured time, median and
// peak power), and the candidates a choice is made from: the reference transferred to them for
// pt (measured values where measured), the profiled modes alone for observed.
struct Profiled
{
    QVector<BatchCandidates> transferred;
    QVector<QSet<int>> measured;  // per batch, the rows of `transferred` that were profiled
    QVector<BatchCandidates> observed;
};

// pt for one cap: the predicted best pair is profiled, and chosen again with what it measured,
// until the pick is a measured pair (at most kVerifications more profiles; then the best
// measured pair that fits). A prediction near the cap is never trusted with the cap.
constexpr int kVerifications = 10;

std::optional<BatchPick> verifiedPick(const BatchTruth &truth, Profiled profiled,
                                      const ConvergenceRelation &samples, double capW,
                                      AccuracyObjective objective, int *extraProfiles)
{
    QVector<BatchCandidates> &candidates = profiled.transferred;
    for (int step = 0; step <= kVerifications; ++step) {
        const std::optional<BatchPick> pick =
            BatchChoice::choose(candidates, samples, capW, objective);
        if (!pick)
            break;
        const int b =
            int(std::find_if(candidates.cbegin(), candidates.cend(),
                             [&](const BatchCandidates &c) { return c.batch == pick->batch; }) -
                candidates.cbegin());
        const int row = int(candidates[b].modes.indexOf(pick->mode));
        if (profiled.measured[b].contains(row))
            return pick;
        if (step == kVerifications)
            break;
        // profile it: what the device measures replaces the prediction
        const BatchCandidates &real = truth.batches[b];
        candidates[b].timeMs[row] = real.timeMs[row];
        candidates[b].powerW[row] = real.powerW[row];
        candidates[b].peakW[row] = real.peakAt(row);
        profiled.measured[b].insert(row);
        ++*extraProfiles;
    }
    // the best measured pair that fits
    QVector<BatchCandidates> measured;
    for (int b = 0; b < candidates.size(); ++b) {
        BatchCandidates only;
        only.batch = candidates[b].batch;
        for (int row : profiled.measured[b]) {
            only.modes.append(candidates[b].modes[row]);
            only.timeMs.append(candidates[b].timeMs[row]);
            only.powerW.append(candidates[b].powerW[row]);
            only.peakW.append(candidates[b].peakW[row]);
        }
        measured.append(only);
    }
    return BatchChoice::choose(measured, samples, capW, objective);
}

// Half the profiles where the reference's predicted front is, one per power level spread evenly
// over its range (the fastest mode a cap at that level would pick), the other half at random:
// the pairs a cap chooses from lie along the front, which the reference's shape predicts.
QVector<int> guidedRows(const PowerModel &reference, const BatchCandidates &batch, int count,
                        std::mt19937_64 &rng)
{
    const ModePredictions predicted = reference.predict(batch.modes);
    QVector<TradeoffPoint> points;
    for (int row = 0; row < batch.modes.size(); ++row)
        points.append({row, predicted.powerW[row], predicted.timeMs[row]});
    const QVector<TradeoffPoint> front = ParetoFront::front(
        points, [](const TradeoffPoint &p) { return p.powerW; },
        [](const TradeoffPoint &p) { return p.timeMs; });
    QVector<int> rows;
    const int along = std::min(int(front.size()), count / 2);
    if (along > 0) {
        const double low = front.first().powerW;
        const double high = front.last().powerW;
        for (int level = 1; level <= along; ++level) {
            const double cap = low + (high - low) * level / along;
            int pick = -1;
            for (const TradeoffPoint &p : front) {  // by power ascending
                if (p.powerW <= cap + 1e-9 && !rows.contains(p.mode))
                    pick = p.mode;
            }
            if (pick >= 0)
                rows.append(pick);
        }
    }
    for (int row : randomRows(int(batch.modes.size()), int(batch.modes.size()), rng)) {
        if (rows.size() >= count)
            break;
        if (!rows.contains(row))
            rows.append(row);
    }
    return rows;
}

Expected<Profiled> profile(const BatchTruth &truth, const BatchEvaluationOptions &options,
                           bool transfer, std::mt19937_64 &rng)
{
    Profiled out;
    for (const BatchCandidates &batch : truth.batches) {
        const int count = std::min(options.samples, int(batch.modes.size()));
        // Guided for time only: for energy, where the best pair is seldom on the cap, it was
        // worse than random draws (docs/optimization.md).
        const bool guided =
            options.reference && options.guided && options.objective == AccuracyObjective::Time;
        const QVector<int> rows = guided ? guidedRows(*options.reference, batch, count, rng)
                                         : randomRows(int(batch.modes.size()), count, rng);
        BatchCandidates observed;
        observed.batch = batch.batch;
        QVector<double> ratios;
        TrainingData data;
        for (int row : rows) {
            observed.modes.append(batch.modes[row]);
            observed.timeMs.append(batch.timeMs[row]);
            observed.powerW.append(batch.powerW[row]);
            observed.peakW.append(batch.peakAt(row));
            ratios.append(batch.peakAt(row) / batch.powerW[row]);
            data.modes.append(batch.modes[row]);
            data.timeMs.append(batch.timeMs[row]);
            data.powerW.append(batch.powerW[row]);
        }
        out.observed.append(observed);
        if (!transfer)
            continue;
        if (!options.reference)
            return Expected<Profiled>::failure(QStringLiteral("pt needs a reference model"));
        const Expected<PowerModel> model = options.reference->transfer(
            QStringLiteral("evaluation"), truth.deviceKind,
            QStringLiteral("target@%1").arg(batch.batch), data, rng(), false);
        if (!model)
            return passOn<Expected<Profiled>>(model);
        const ModePredictions predicted = model->predict(batch.modes);
        BatchCandidates candidates;
        candidates.batch = batch.batch;
        candidates.modes = batch.modes;
        candidates.timeMs = predicted.timeMs;
        candidates.powerW = predicted.powerW;
        for (int row : rows) {  // what was measured is known
            candidates.timeMs[row] = batch.timeMs[row];
            candidates.powerW[row] = batch.powerW[row];
        }
        candidates.peakRatio = Quartiles::of(ratios).median;
        for (int row = 0; row < candidates.modes.size(); ++row)
            candidates.peakW.append(candidates.powerW[row] * std::max(1.0, candidates.peakRatio));
        for (int row : rows)
            candidates.peakW[row] = batch.peakAt(row);
        out.transferred.append(candidates);
        out.measured.append(QSet<int>(rows.cbegin(), rows.cend()));
    }
    return out;
}

struct Tally
{
    QVector<double> penalties;
    int answered = 0;
    int violations = 0;
    int problems = 0;
};

}  // namespace

QStringList BatchEvaluator::strategyNames()
{
    return {kOracle, kLargest, kProxy, kTransfer, kObserved};
}

Expected<QVector<BatchStrategyResult>> BatchEvaluator::run(const BatchTruth &truth,
                                                           const BatchEvaluationOptions &options,
                                                           QVector<BatchEvaluationPick> *picks,
                                                           const std::function<bool()> &cancelled)
{
    using Result = Expected<QVector<BatchStrategyResult>>;
    const QStringList strategies =
        options.strategies.isEmpty() ? strategyNames() : options.strategies;
    for (const QString &name : strategies) {
        if (!strategyNames().contains(name)) {
            return Result::badInput(InputField::Strategies,
                                    QStringLiteral("'%1': expected %2")
                                        .arg(name, strategyNames().join(QStringLiteral(", "))));
        }
    }
    if (truth.batches.isEmpty())
        return Result::badInput(InputField::Workload,
                                QStringLiteral("no batch sizes to choose from"));
    const TruthIndex index(truth);
    QHash<QString, Tally> tallies;
    int totalExtraProfiles = 0;
    const bool ours = strategies.contains(kTransfer) || strategies.contains(kObserved);
    for (int repeat = 0; repeat < std::max(1, options.repeats); ++repeat) {
        if (cancelled && cancelled())
            return Result::failure(QStringLiteral("cancelled"));
        std::mt19937_64 rng(options.seed * 1000003ULL + quint64(repeat));
        Profiled profiled;
        int extraProfiles = 0;  // pt's verifications, over this repeat's caps
        if (ours) {
            Expected<Profiled> done = profile(truth, options, strategies.contains(kTransfer), rng);
            if (!done)
                return passOn<Result>(done);
            profiled = std::move(done).value();
        }
        for (double cap : options.capsW) {
            const std::optional<BatchPick> best =
                BatchChoice::choose(truth.batches, truth.samples, cap, options.objective);
            for (const QString &name : strategies) {
                std::optional<BatchPick> pick;
                if (name == kOracle)
                    pick = best;
                else if (name == kLargest)
                    pick = largestPick(truth, options.proxySamples, cap);
                else if (name == kProxy)
                    pick = proxyPick(truth, options.proxySamples, cap, options.objective);
                else if (name == kTransfer)
                    pick = verifiedPick(truth, profiled, options.proxySamples, cap,
                                        options.objective, &extraProfiles);
                else
                    pick = BatchChoice::choose(profiled.observed, options.proxySamples, cap,
                                               options.objective);
                const std::optional<BatchPick> real = pick ? index.truly(*pick) : std::nullopt;
                Tally &tally = tallies[name];
                if (best) {
                    ++tally.problems;
                    if (real) {
                        ++tally.answered;
                        tally.penalties.append(
                            100.0 *
                            (real->cost(options.objective) / best->cost(options.objective) - 1));
                    }
                }
                if (real && real->peakW > cap)
                    ++tally.violations;
                if (picks) {
                    picks->append({name, repeat, cap, pick,
                                   real ? real->cost(options.objective)
                                        : std::numeric_limits<double>::quiet_NaN(),
                                   real ? real->peakW : 0});
                }
            }
        }
        totalExtraProfiles += extraProfiles;
    }
    QVector<BatchStrategyResult> out;
    const int allModes = int(truth.batches.first().modes.size());
    const int caps = int(options.capsW.size()) * std::max(1, options.repeats);
    for (const QString &name : strategies) {
        const Tally &tally = tallies[name];
        const Quartiles q = Quartiles::of(tally.penalties);
        BatchStrategyResult r;
        r.strategy = name;
        r.problems = tally.problems;
        r.penaltyMedian = q.median;
        r.penaltyQ1 = q.q1;
        r.penaltyQ3 = q.q3;
        r.found = percentOf(tally.answered, tally.problems);
        r.violations = percentOf(tally.violations, std::max(1, caps));
        // pt also profiles its verifications: per batch size, on average over the repeats
        const double extra = name == kTransfer
            ? double(totalExtraProfiles) / std::max(1, options.repeats) / truth.batches.size()
            : 0.0;
        r.profiledPerBatch = name == kTransfer || name == kObserved ? options.samples + extra
            : name == kLargest || name == kProxy                    ? 0
                                                                    : allModes;
        out.append(r);
    }
    return out;
}

}  // namespace ptwb
