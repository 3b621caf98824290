#include "optimize/tradeoffspace.h"

#include "modes/modespace.h"
#include "predict/residualcorrection.h"
#include "store/store.h"

#include <cmath>
#include <limits>

namespace ptwb {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double percentOf(double value, double other)
{
    return other > 0 ? 100 * (value / other - 1) : kNaN;
}

}  // namespace

double TradeoffSpace::predictedTimeMs(int i) const
{
    return m_predictedTimeMs.isEmpty() ? kNaN : m_predictedTimeMs[i];
}

double TradeoffSpace::predictedPowerW(int i) const
{
    return m_predictedPowerW.isEmpty() ? kNaN : m_predictedPowerW[i];
}

double Budget::confidenceOf(double sigmas)
{
    return 0.5 * std::erfc(-sigmas / std::sqrt(2.0));
}

double TradeoffSpace::predictedTimeStdMs(int i) const
{
    return m_predictedTimeStdMs.isEmpty() ? kNaN : m_predictedTimeStdMs[i];
}

double TradeoffSpace::predictedPowerStdW(int i) const
{
    return m_predictedPowerStdW.isEmpty() ? kNaN : m_predictedPowerStdW[i];
}

Expected<TradeoffSpace> TradeoffSpace::build(const DeviceSpec &spec, const TrainingData &measured,
                                             const PowerModel *model)
{
    if (!model)
        return place(spec, measured, {}, std::nullopt, 0);
    const ModeSpace space(spec);
    const Expected<ModePredictions> predicted = model->predict(space);
    if (!predicted)
        return passOn<Expected<TradeoffSpace>>(predicted);
    return place(spec, measured, space, *predicted, model->record().id);
}

Expected<TradeoffSpace> TradeoffSpace::build(const DeviceSpec &spec, const TrainingData &measured,
                                             const ModePredictions &predicted, qint64 modelId)
{
    const ModeSpace space(spec);
    if (predicted.timeMs.size() != space.size() || predicted.powerW.size() != space.size())
        return Expected<TradeoffSpace>::failure(
            QStringLiteral("predictions for %1 modes, but %2 has %3")
                .arg(predicted.timeMs.size())
                .arg(spec.name())
                .arg(space.size()),
            ErrorKind::BadInput);
    return place(spec, measured, space, predicted, modelId);
}

Expected<TradeoffSpace> TradeoffSpace::place(const DeviceSpec &spec, const TrainingData &measured,
                                             const std::optional<ModeSpace> &space,
                                             const std::optional<ModePredictions> &predicted,
                                             qint64 modelId)
{
    TradeoffSpace out;
    out.m_kind = spec.id();
    if (space && predicted) {
        out.m_modes.reserve(int(space->size()));
        for (qint64 i = 0; i < space->size(); ++i)
            out.m_modes.append(space->mode(i));
        out.m_modelId = modelId;
        out.m_predictedTimeMs = predicted->timeMs;
        out.m_predictedPowerW = predicted->powerW;
        if (predicted->timeStdMs.size() == predicted->timeMs.size() &&
            predicted->powerStdW.size() == predicted->powerW.size()) {
            out.m_predictedTimeStdMs = predicted->timeStdMs;
            out.m_predictedPowerStdW = predicted->powerStdW;
        }
    } else {
        out.m_modes = measured.modes;
    }
    out.m_index.reserve(out.m_modes.size());
    for (int i = 0; i < out.m_modes.size(); ++i)
        out.m_index.insert(out.m_modes[i], i);
    out.m_observedTimeMs.fill(kNaN, out.m_modes.size());
    out.m_observedPowerW.fill(kNaN, out.m_modes.size());
    QVector<int> rows;
    QVector<double> times;
    QVector<double> powers;
    for (int m = 0; m < measured.size(); ++m) {
        const int i = out.indexOf(measured.modes[m]);
        if (i < 0)
            continue;  // measured outside this device's table: nothing to place it on
        out.m_observedTimeMs[i] = measured.timeMs[m];
        out.m_observedPowerW[i] = measured.powerW[m];
        rows.append(i);
        times.append(measured.timeMs[m]);
        powers.append(measured.powerW[m]);
        ++out.m_observedCount;
    }
    if (out.hasPredictions() && !rows.isEmpty()) {
        // As the pt strategy does (docs/prediction.md): the measured modes' own errors correct
        // the predictions around them.
        ModePredictions raw {out.m_predictedTimeMs, out.m_predictedPowerW, {}, {}};
        const ModePredictions corrected =
            ResidualCorrection(out.m_modes).apply(raw, rows, times, powers);
        out.m_predictedTimeMs = corrected.timeMs;
        out.m_predictedPowerW = corrected.powerW;
    }
    out.finish(spec);
    return out;
}

Expected<TradeoffSpace> TradeoffSpace::load(Store &store, const QString &workload,
                                            const QString &device, bool observedOnly)
{
    using Result = Expected<TradeoffSpace>;
    const Expected<QString> found = store.deviceOfWorkload(workload, device);
    if (!found)
        return passOn<Result>(found);
    const QString resolved = *found;
    const std::optional<QString> kind = store.deviceKind(resolved);
    if (!kind)
        return Result::failure(QStringLiteral("no device '%1' in the store").arg(resolved),
                               ErrorKind::BadInput);
    const Expected<DeviceSpec> spec = DeviceSpec::lookup(*kind);
    if (!spec)
        return Result::failure(spec.error(), ErrorKind::BadInput);
    const Expected<QVector<Measurement>> rows = store.measurements(resolved, workload);
    if (!rows)
        return Result::failure(rows.error());
    const Expected<TrainingData> reduced = TrainingData::fromMeasurements(
        *rows, QStringLiteral("workload '%1' on %2").arg(workload, resolved));
    if (!reduced)
        return passOn<Result>(reduced);
    const TrainingData &measured = *reduced;
    std::optional<PowerModel> model;
    if (!observedOnly) {
        const Expected<ModelRecord> record = store.latestModel(*kind, workload, QString());
        if (record) {
            Expected<PowerModel> restored = PowerModel::fromRecord(*record);
            if (!restored)
                return passOn<Result>(restored);
            model = std::move(restored).value();
        }
    }
    if (!model && measured.size() == 0)
        return Result::failure(
            QStringLiteral("no measurements of '%1' on %2 and no model").arg(workload, resolved),
            ErrorKind::BadInput);
    Expected<TradeoffSpace> out = build(*spec, measured, model ? &*model : nullptr);
    if (out) {
        out->m_device = resolved;
        out->m_workload = workload;
    }
    return out;
}

void TradeoffSpace::finish(const DeviceSpec &spec)
{
    QVector<TradeoffPoint> best;
    QVector<TradeoffPoint> observed;
    QVector<TradeoffPoint> predicted;
    best.reserve(size());
    predicted.reserve(hasPredictions() ? size() : 0);
    for (int i = 0; i < size(); ++i) {
        best.append({i, powerW(i), timeMs(i)});
        if (isObserved(i))
            observed.append({i, m_observedPowerW[i], m_observedTimeMs[i]});
        if (hasPredictions())
            predicted.append({i, m_predictedPowerW[i], m_predictedTimeMs[i]});
    }
    m_front = ParetoFront(best);
    m_observedFront = ParetoFront(observed);
    m_predictedFront = ParetoFront(predicted);

    m_maxn = indexOf(spec.maxMode());
    // A preset maps onto the fastest candidate within its caps: the highest candidate value of
    // each dimension under the cap (as the nvp strategy does).
    QVector<qint64> values[kDimensionCount];
    for (Dimension dimension : kAllDimensions) {
        QVector<qint64> &v = values[static_cast<int>(dimension)];
        for (const PowerMode &mode : std::as_const(m_modes))
            v.append(mode.value(dimension));
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    QVector<TradeoffPoint> presetPoints;
    for (const Preset &preset : spec.presets()) {
        const qint64 caps[kDimensionCount] = {preset.cores, preset.cpuMaxKHz, preset.gpuMaxHz,
                                              preset.emcMaxHz};
        PowerMode mode;
        bool possible = true;
        for (Dimension dimension : kAllDimensions) {
            const QVector<qint64> &v = values[static_cast<int>(dimension)];
            const auto above = std::upper_bound(v.cbegin(), v.cend(), caps[int(dimension)]);
            possible = possible && above != v.cbegin();
            if (possible)
                mode.setValue(dimension, *(above - 1));
        }
        const int i = possible ? indexOf(mode) : -1;
        if (i < 0)
            continue;
        m_presets.append({preset.name, i});
        presetPoints.append({i, powerW(i), timeMs(i)});
    }
    m_presetFront = ParetoFront(presetPoints);
}

std::optional<BudgetAnswer> TradeoffSpace::query(const ParetoFront &front, const Budget &budget)
{
    const bool energy = budget.objective == Budget::Objective::Energy;
    if (budget.kind == Budget::Kind::Power)
        return energy ? front.lowestEnergyWithinPower(budget.value)
                      : front.fastestWithin(budget.value);
    return energy ? front.lowestEnergyWithinTime(budget.value)
                  : front.lowestPowerWithin(budget.value);
}

std::optional<BudgetAnswer> TradeoffSpace::query(const Budget &budget) const
{
    if (budget.safetySigmas > 0 && hasUncertainty())
        return query(safeFront(budget), budget);
    return query(m_front, budget);
}

ParetoFront TradeoffSpace::safeFront(const Budget &budget) const
{
    // Built per query: a sort of at most a few thousand modes, well under a slider step.
    const bool power = budget.kind == Budget::Kind::Power;
    QVector<TradeoffPoint> points;
    points.reserve(size());
    for (int i = 0; i < size(); ++i) {
        double w = powerW(i);
        double ms = timeMs(i);
        if (!isObserved(i)) {
            if (power)
                w += budget.safetySigmas * m_predictedPowerStdW[i];
            else
                ms += budget.safetySigmas * m_predictedTimeStdMs[i];
        }
        points.append({i, w, ms});
    }
    return ParetoFront(points);
}

double TradeoffSpace::objectiveOf(int i, const Budget &budget) const
{
    if (budget.objective == Budget::Objective::Energy)
        return timeMs(i) * powerW(i);
    return budget.kind == Budget::Kind::Power ? timeMs(i) : powerW(i);
}

Comparison TradeoffSpace::compare(int chosen, int other, const QString &name) const
{
    return {name, other, percentOf(timeMs(chosen), timeMs(other)),
            percentOf(powerW(chosen), powerW(other)),
            percentOf(timeMs(chosen) * powerW(chosen), timeMs(other) * powerW(other))};
}

std::optional<Comparison> TradeoffSpace::versusMaxn(int index) const
{
    if (m_maxn < 0 || index < 0)
        return std::nullopt;
    return compare(index, m_maxn, QStringLiteral("MAXN"));
}

std::optional<Recommendation> TradeoffSpace::recommend(const Budget &budget) const
{
    const std::optional<BudgetAnswer> answer = query(budget);
    if (!answer)
        return std::nullopt;
    Recommendation out;
    out.fits = answer->fits;
    out.index = answer->point.mode;
    out.vsMaxn = versusMaxn(out.index);
    if (budget.safetySigmas > 0 && hasUncertainty()) {
        if (const std::optional<BudgetAnswer> plain = query(m_front, budget); plain && plain->fits)
            out.safetyCostPercent =
                percentOf(objectiveOf(out.index, budget), objectiveOf(plain->point.mode, budget));
    }
    if (const std::optional<BudgetAnswer> preset = query(m_presetFront, budget)) {
        const int i = preset->point.mode;
        for (const auto &[name, index] : m_presets) {
            if (index == i) {
                out.vsPreset = compare(out.index, i, name);
                break;
            }
        }
    }
    return out;
}

}  // namespace ptwb
