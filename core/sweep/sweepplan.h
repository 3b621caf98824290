#pragma once

#include "modes/modespace.h"
#include "util/expected.h"

#include <QString>
#include <QVector>

#include <optional>

namespace ptwb {

// The budget problem of a search sweep (mode set search:STRATEGY:WATTS, or
// search:STRATEGY:MSms for a time budget; pts adds :ref=MODEL_ID): a strategy that asks for one
// mode at a time (BudgetSearch) and the budget it answers: the fastest mode within a power budget,
// or the lowest-power one within a minibatch time budget.
struct SearchGoal
{
    QString strategy;  // gmd or bs
    double powerBudgetW = 0;  // 0 when the budget is a time budget
    double timeBudgetMs = 0;
    qint64 referenceModelId = 0;  // the stored reference model pts transfers (":ref=ID")

    bool isTimeBudget() const { return timeBudgetMs > 0; }
    double budget() const { return isTimeBudget() ? timeBudgetMs : powerBudgetW; }
    QString budgetText() const;  // "30.0 W", "150.0 ms"
    // "the fastest mode within 30.0 W", "the lowest-power mode within 150.0 ms"
    QString goalText() const;
    QString modeSet() const;
    // nullopt for a mode set that is not a search; an error for a malformed one.
    static Expected<std::optional<SearchGoal>> of(const QString &modeSet);
};

// What a sweep will profile, decided and stored before the first mode is touched.
struct SweepPlan
{
    static constexpr int kAdaptiveStart = 20;
    static constexpr int kAdaptiveBatch = 10;

    QString device;  // the store's device name
    QString deviceKind;  // orin-agx, ...
    QString workload;  // the store's workload name
    QString target;  // where it runs, as DeviceTarget::toString() prints it (no secrets)
    QString modeSet;  // all, random:N, als:N, grid:SPEC, search:STRATEGY:WATTS
    QString run;  // what the device runs, WorkloadSpec as JSON text
    int minibatches = 40;
    int repeats = 1;
    quint64 seed = 0;
    QVector<PowerMode> modes;  // in profiling order; each listed `repeats` times in a row
    // The minibatch sizes each mode is profiled at (training or inference, as `run` says), in
    // this order after one apply of the mode; empty: the run's own batch only.
    QVector<int> batchSizes;

    static constexpr int kMaxBatchSize = 4096;
    static constexpr int kMaxBatchSizes = 32;

    // "1,4,16,32,64": distinct minibatch sizes of 1..kMaxBatchSize, at most kMaxBatchSizes of
    // them, kept in the order given (the order each mode is profiled in). Empty text: none.
    // Errors (the BatchSizes field) name the entry and say what was expected.
    static Expected<QVector<int>> parseBatchSizes(const QString &text);

    // Chooses the modes of `modeSet` from the device's space:
    //   all            every mode
    //   random:N       N distinct modes drawn with `seed`
    //   grid:SPEC      a sub-grid, as ModeSpace::subGrid ("cores=even;cpu=every:2:2")
    //   als:N          adaptive: kAdaptiveStart random modes now, then active learning adds
    //                  batches (ActiveSelection) until N modes or until it converges
    //   search:S:W     a search for the fastest mode within W watts (search:S:MSms: for the
    //                  lowest-power mode within MS ms per minibatch; SearchGoal): no modes here;
    //                  SweepSetup::create plans the first the search asks for, and the next
    //                  one each time the last is measured
    //   cap:W          with batchSizes: the study's ladder for a power cap on the peak
    //                  (CapLadder), one (mode, batch) at a time; no modes here either
    // Errors name the mode set and say what was expected.
    static Expected<QVector<PowerMode>> selectModes(const DeviceSpec &device,
                                                    const QString &modeSet, quint64 seed);

    // Orders modes from high to low clocks (memory, then GPU, CPU, cores): most changes then
    // only lower clocks, and a raise happens once per block of the outer clocks. The PowerTrain
    // study saw devices that accept a higher frequency only after a reboot; this order keeps
    // such raises rare. The order of every stored plan.
    static void orderHighToLow(QVector<PowerMode> &modes);
    // The comparison of orderHighToLow: true when `a` comes before `b`.
    static bool higherFirst(const PowerMode &a, const PowerMode &b);

    // True when going from `from` to `to` lowers or keeps every dimension (cores, CPU, GPU,
    // memory): a device that accepts decreasing changes only can make it without a reboot.
    static bool lowersOrKeeps(const PowerMode &from, const PowerMode &to);

    // For a device that accepts decreasing changes only (agent `hello`: "mode_changes":
    // "decreasing"): orders modes in chains in which every step lowers or keeps every
    // dimension, chains one after the other, so a reboot is needed only between two chains.
    // Greedy: a chain starts at the highest remaining mode (higherFirst) and repeatedly takes
    // the highest remaining mode that lowersOrKeeps from the last one. Returns the number of
    // chains (0 for no modes): the reboots the sweep needs, counting one to reach the first.
    static int orderInDecreasingChains(QVector<PowerMode> &modes);

    // The same rule one step at a time, for a device whose mode is `from` and a queue that
    // changes as it goes (a fleet shares it): the position in `pending` of the highest mode it
    // reaches by lowering or keeping every clock, or, when there is none, of the highest of all
    // (a new chain, after a reboot). -1 when nothing is pending. Taking modes this way from the
    // top gives orderInDecreasingChains' order (test_sweepplan).
    static int nextInChain(const PowerMode &from, const QVector<PowerMode> &pending);
};

}  // namespace ptwb
