#pragma once

#include "predict/powermodel.h"
#include "predict/regressor.h"
#include "util/quartiles.h"

#include <QHash>
#include <QStringList>

namespace ptwb {

struct AccuracyRow
{
    QString method;  // "nn", "pt" (default configuration), "nn-baseline", "pt-baseline"
    QString config;  // "default" or "baseline"
    int samples = 0;
    int repeats = 0;
    Quartiles timeMape;  // percent, over the repeats
    Quartiles powerMape;
    double seconds = 0;  // mean wall time to build one model pair (both targets)
};

struct AccuracyBenchOptions
{
    QVector<int> samples {10, 20, 30, 50, 100};
    int repeats = 10;
    QStringList methods {QStringLiteral("nn"), QStringLiteral("pt")};
    QStringList configs {QStringLiteral("default"), QStringLiteral("baseline")};
    quint64 seed = 0;
    // Regressor configurations used instead of the named ones (tests: small, fast ones).
    QHash<QString, predict::RegressorConfig> configOverrides;
};

// The accuracy benchmark of `ptwb bench accuracy` (docs/prediction.md, docs/benchmarks.md): a
// reference model trained once per configuration on every reference mode (of the reference's
// device kind, which may differ from the target's); then, per sample size and
// repeat, N target modes drawn at random (the same draw for every method), NN trained and PT
// transferred on them, and both validated on every target mode that was not drawn.
class AccuracyBench
{
public:
    AccuracyBench(TrainingData reference, TrainingData target, QString deviceKind,
                  AccuracyBenchOptions options);

    // The device kind the reference workload was measured on, when it is not the target's: PT
    // then transfers across devices (NN, trained on the target alone, is unchanged).
    void setReferenceKind(QString kind) { m_referenceKind = std::move(kind); }
    // After each reference model and each repeat: `done` of `total` steps (reference models
    // plus sample sizes x configurations x methods x repeats).
    void setProgress(std::function<void(int done, int total)> progress)
    {
        m_progress = std::move(progress);
    }
    int steps() const;

    Status validate() const;
    // Calls `rowDone` as each row completes; `log` receives one line per reference model. A
    // cancelled run fails with a message saying so; the rows reported before are complete.
    Expected<QVector<AccuracyRow>> run(const std::function<void(const AccuracyRow &)> &rowDone,
                                       const std::function<void(const QString &)> &log,
                                       const std::function<bool()> &cancelled = {}) const;

private:
    TrainingData m_reference;
    TrainingData m_target;
    QString m_deviceKind;
    QString m_referenceKind;  // the target's unless set
    AccuracyBenchOptions m_options;
    std::function<void(int, int)> m_progress;
};

}  // namespace ptwb
