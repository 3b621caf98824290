#pragma once

#include "optimize/strategy.h"
#include "util/expected.h"

#include <QHash>

#include <optional>

namespace ptwb {

// What a device answered for one mode during a search: its observed power and time, or that
// it could not be measured (the device refused the mode, or every attempt failed).
struct SearchObservation
{
    double powerW = 0;
    double timeMs = 0;
    bool failed = false;
};

// Where a search on a device stands: the next mode to profile, or (when none) the answer.
struct SearchStep
{
    std::optional<PowerMode> next;
    PowerMode answer;  // valid when !next
    bool fits = false;  // the answer's observed power is within the budget
    int profiled = 0;  // distinct modes the strategy has used so far
};

// One budget problem answered on a device, one profile at a time, by a strategy written for the
// offline evaluation: the strategy runs again from the start over what has been measured (it is
// deterministic for a given context), until it asks for a mode with no measurement. That mode
// is the next to profile; when it asks for none, its pick is the answer. A search that stopped
// (a crash, a dropped connection) thus goes on exactly where it was, from the stored results.
class BudgetSearch
{
public:
    // The strategies a device search runs: gmd, bs and pts (pts needs context.reference and
    // answers power budgets only).
    static const QStringList &strategies();

    // `candidates`: every mode of the device; `measured`: what this search profiled so far. A
    // mode that failed counts as drawing infinite power: it is never the answer.
    //
    // A time budget (`timeBudget`: `budget` is ms per minibatch) asks for the lowest-power mode
    // within it. The strategies are written for power budgets (power rises with every knob), so
    // they search the mirrored grid, where every knob runs from its highest value down and time
    // takes power's place: raising a mirrored knob lowers a clock, which costs time and saves
    // power, just as raising a clock costs power and saves time.
    static Expected<SearchStep> step(const QString &strategy, double budget, bool timeBudget,
                                     const StrategyContext &context,
                                     const QVector<PowerMode> &candidates,
                                     const QHash<PowerMode, SearchObservation> &measured);
};

}  // namespace ptwb
