#pragma once

#include "optimize/evaluation.h"

#include <functional>

namespace ptwb {

// The strategy evaluation on two workloads of a store: loads the target's measured modes (the
// candidates) and, when pt or safe are asked for, the reference workload and the newest stored
// reference model of the default configuration (else the Evaluator trains one), then runs the
// Evaluator. It opens its own Store, so it runs on the thread that calls run() (a worker).
class StoredEvaluation
{
public:
    struct Params
    {
        QString databasePath;
        QString targetDevice;  // "" when the workload was measured on one device only
        QString targetWorkload;
        QString referenceDevice;  // read only when options.needsReference()
        QString referenceWorkload;
        EvaluationOptions options;
    };

    struct Callbacks
    {
        // Polled by the Evaluator between repeats and during a reference training.
        std::function<bool()> cancelled;
        // After each repeat of each strategy: `done` of `total` (strategies x repeats).
        std::function<void(int done, int total)> progress;
        // Each strategy's metrics as soon as it is done.
        std::function<void(const StrategyMetrics &)> result;
        // One line for a person: which reference model is used, and the Evaluator's own lines.
        std::function<void(const QString &)> log;
    };

    explicit StoredEvaluation(Params params)
        : m_params(std::move(params))
    {
    }

    // Every strategy's metrics, in the order of options.strategies. A cancelled run fails with
    // a message saying so, after reporting the strategies it finished.
    Expected<QVector<StrategyMetrics>> run(const Callbacks &callbacks = {}) const;

private:
    Params m_params;
};

}  // namespace ptwb
