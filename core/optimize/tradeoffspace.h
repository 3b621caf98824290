#pragma once

#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "optimize/paretofront.h"
#include "predict/powermodel.h"

#include <QHash>
#include <QVector>

#include <optional>

namespace ptwb {

class Store;

// A budget as a person states it: a power cap (W) or a minibatch time cap (ms), and what to
// minimise within it (time or power for "time", energy for "energy").
struct Budget
{
    enum class Kind { Power, Time };
    enum class Objective { Time, Energy };
    Kind kind = Kind::Power;
    double value = 0;
    Objective objective = Objective::Time;
    // The safe pick: a predicted mode counts as within the budget only when its predicted power
    // (time, for a time budget) plus this many of the model's standard deviations is; measured
    // modes by their observed values. 0: the predictions as they are.
    double safetySigmas = 0;

    // One-sided confidence of a safety margin under a normal error: 0.5 -> 69 %, 1 -> 84 %.
    static double confidenceOf(double sigmas);
};

// How a recommended mode compares with another one (MAXN, a stock preset): percentages of
// the other's time, power and energy (negative is less).
struct Comparison
{
    QString against;  // "MAXN" or the preset's name
    int index = -1;
    double timePercent = 0;
    double powerPercent = 0;
    double energyPercent = 0;
};

struct Recommendation
{
    bool fits = false;  // false: nothing fits, `index` is the closest
    int index = -1;
    std::optional<Comparison> vsMaxn;
    std::optional<Comparison> vsPreset;  // the best stock preset for the same budget
    // With a safety margin: what it costs, in % of the objective (time within a power budget,
    // power within a time budget, energy) over the pick without the margin; 0 when the same.
    std::optional<double> safetyCostPercent;
};

// Every candidate mode of one workload on one device: the whole mode space with a model's
// predictions when there is a model, the measured modes with their observed values, and the
// best known value of each (observed where measured). Answers budget queries in O(log n).
class TradeoffSpace
{
public:
    TradeoffSpace() = default;

    // With a model: every mode of `spec`'s space. Without: the measured modes only.
    static Expected<TradeoffSpace> build(const DeviceSpec &spec, const TrainingData &measured,
                                         const PowerModel *model);
    // The same from predictions already made for every mode of ModeSpace(spec), in its index
    // order (the model's id is recorded as `modelId`).
    static Expected<TradeoffSpace> build(const DeviceSpec &spec, const TrainingData &measured,
                                         const ModePredictions &predicted, qint64 modelId);
    // The measurements of `workload` on `device` ("" finds the device when there is one) and the
    // newest model of the workload on the device's kind, unless `observedOnly`.
    static Expected<TradeoffSpace> load(Store &store, const QString &workload,
                                        const QString &device, bool observedOnly);

    int size() const { return int(m_modes.size()); }
    const QString &device() const { return m_device; }
    const QString &deviceKind() const { return m_kind; }
    const QString &workload() const { return m_workload; }
    qint64 modelId() const { return m_modelId; }
    bool hasPredictions() const { return !m_predictedTimeMs.isEmpty(); }
    int observedCount() const { return m_observedCount; }

    const PowerMode &mode(int i) const { return m_modes[i]; }
    int indexOf(const PowerMode &mode) const { return m_index.value(mode, -1); }
    bool isObserved(int i) const { return !std::isnan(m_observedTimeMs[i]); }
    // NaN where unknown.
    double observedTimeMs(int i) const { return m_observedTimeMs[i]; }
    double observedPowerW(int i) const { return m_observedPowerW[i]; }
    double predictedTimeMs(int i) const;
    double predictedPowerW(int i) const;
    // The model's own uncertainty: one standard deviation; NaN without one.
    bool hasUncertainty() const { return !m_predictedTimeStdMs.isEmpty(); }
    double predictedTimeStdMs(int i) const;
    double predictedPowerStdW(int i) const;
    // Observed where measured, else predicted.
    double timeMs(int i) const { return isObserved(i) ? m_observedTimeMs[i] : predictedTimeMs(i); }
    double powerW(int i) const { return isObserved(i) ? m_observedPowerW[i] : predictedPowerW(i); }

    // Fronts of the best known values, of the measured modes and of the predictions.
    const ParetoFront &front() const { return m_front; }
    const ParetoFront &observedFront() const { return m_observedFront; }
    const ParetoFront &predictedFront() const { return m_predictedFront; }

    // Fastest within a power budget (lowest power within a time budget), or lowest energy;
    // nothing only when there are no usable candidates.
    std::optional<BudgetAnswer> query(const Budget &budget) const;
    // The query's answer with its comparison against MAXN and the best stock preset.
    std::optional<Recommendation> recommend(const Budget &budget) const;

    // A mode against another: percentages of the other's time, power and energy.
    Comparison compare(int chosen, int other, const QString &name) const;
    // Against MAXN, when MAXN is a candidate.
    std::optional<Comparison> versusMaxn(int index) const;

    int maxnIndex() const { return m_maxn; }
    // The candidate each stock preset maps onto (the fastest within its caps), by preset name.
    const QVector<QPair<QString, int>> &presets() const { return m_presets; }

private:
    static Expected<TradeoffSpace> place(const DeviceSpec &spec, const TrainingData &measured,
                                         const std::optional<ModeSpace> &space,
                                         const std::optional<ModePredictions> &predicted,
                                         qint64 modelId);
    void finish(const DeviceSpec &spec);
    static std::optional<BudgetAnswer> query(const ParetoFront &front, const Budget &budget);
    // The front of best known values with each predicted mode's power (time) raised by the
    // budget's safety margin.
    ParetoFront safeFront(const Budget &budget) const;
    double objectiveOf(int i, const Budget &budget) const;

    QString m_device;
    QString m_kind;
    QString m_workload;
    qint64 m_modelId = 0;
    QVector<PowerMode> m_modes;
    QHash<PowerMode, int> m_index;
    QVector<double> m_observedTimeMs;
    QVector<double> m_observedPowerW;
    QVector<double> m_predictedTimeMs;  // empty without a model
    QVector<double> m_predictedPowerW;
    QVector<double> m_predictedTimeStdMs;  // empty without a model's uncertainty
    QVector<double> m_predictedPowerStdW;
    int m_observedCount = 0;
    ParetoFront m_front;
    ParetoFront m_observedFront;
    ParetoFront m_predictedFront;
    ParetoFront m_presetFront;  // of the presets' modes, by best known values
    int m_maxn = -1;
    QVector<QPair<QString, int>> m_presets;
};

}  // namespace ptwb
