#include "predict/accuracybench.h"

#include <QElapsedTimer>

#include <algorithm>
#include <numeric>
#include <random>

namespace ptwb {

AccuracyBench::AccuracyBench(TrainingData reference, TrainingData target, QString deviceKind,
                             AccuracyBenchOptions options)
    : m_reference(std::move(reference))
    , m_target(std::move(target))
    , m_deviceKind(std::move(deviceKind))
    , m_referenceKind(m_deviceKind)
    , m_options(std::move(options))
{
}

Status AccuracyBench::validate() const
{
    for (const QString &method : m_options.methods) {
        if (method != QLatin1String("nn") && method != QLatin1String("pt"))
            return Status::badInput(InputField::Methods,
                                    QStringLiteral("'%1' is not nn or pt").arg(method));
    }
    for (const QString &config : m_options.configs) {
        if (config != QLatin1String("default") && config != QLatin1String("baseline"))
            return Status::badInput(InputField::Configs,
                                    QStringLiteral("'%1' is not default or baseline").arg(config));
    }
    for (int samples : m_options.samples) {
        if (samples < 1 || samples >= m_target.size()) {
            return Status::badInput(InputField::Samples,
                                    QStringLiteral("%1 is not between 1 and %2 (the target has "
                                                   "%3 modes, some must stay for validation)")
                                        .arg(samples)
                                        .arg(m_target.size() - 1)
                                        .arg(m_target.size()));
        }
    }
    if (m_options.repeats < 1)
        return Status::badInput(InputField::Repeats, QStringLiteral("expected at least 1"));
    return {};
}

int AccuracyBench::steps() const
{
    const int references =
        m_options.methods.contains(QStringLiteral("pt")) ? int(m_options.configs.size()) : 0;
    return references +
        int(m_options.samples.size() * m_options.configs.size() * m_options.methods.size()) *
        m_options.repeats;
}

Expected<QVector<AccuracyRow>>
AccuracyBench::run(const std::function<void(const AccuracyRow &)> &rowDone,
                   const std::function<void(const QString &)> &log,
                   const std::function<bool()> &cancelled) const
{
    using Result = Expected<QVector<AccuracyRow>>;
    if (Status status = validate(); !status)
        return passOn<Result>(status);
    const TrainingCallbacks callbacks {{}, cancelled};
    const int total = steps();
    int done = 0;
    const auto stepDone = [&] {
        ++done;
        if (m_progress)
            m_progress(done, total);
    };
    const auto isCancelled = [&cancelled] { return cancelled && cancelled(); };
    const auto train = [this, &callbacks](const QString &kind, const QString &workload,
                                          const TrainingData &data, const QString &method,
                                          const QString &config, quint64 seed) {
        const auto custom = m_options.configOverrides.constFind(config);
        return custom == m_options.configOverrides.cend()
            ? PowerModel::train(kind, kind, workload, data, method, config, seed, callbacks)
            : PowerModel::train(kind, kind, workload, data, method, *custom, seed, callbacks);
    };

    // One reference model per configuration, used by every PT repeat.
    QHash<QString, std::shared_ptr<PowerModel>> references;
    if (m_options.methods.contains(QStringLiteral("pt"))) {
        for (const QString &config : m_options.configs) {
            QElapsedTimer timer;
            timer.start();
            const QString &referenceKind = m_referenceKind;
            Expected<PowerModel> reference =
                train(referenceKind, QStringLiteral("reference"), m_reference,
                      QStringLiteral("reference"), config, m_options.seed);
            if (!reference)
                return passOn<Result>(reference);
            references.insert(config, std::make_shared<PowerModel>(std::move(reference).value()));
            stepDone();
            if (log) {
                log(QStringLiteral("reference model (%1 configuration, %2 %3 modes, time and "
                                   "power): %4 s")
                        .arg(config)
                        .arg(m_reference.size())
                        .arg(referenceKind)
                        .arg(timer.elapsed() / 1000.0, 0, 'f', 2));
            }
        }
    }

    QVector<AccuracyRow> rows;
    for (int samples : m_options.samples) {
        for (const QString &config : m_options.configs) {
            for (const QString &method : m_options.methods) {
                QVector<double> timeErrors;
                QVector<double> powerErrors;
                double seconds = 0;
                for (int repeat = 0; repeat < m_options.repeats; ++repeat) {
                    if (isCancelled())
                        return Result::failure(QStringLiteral("accuracy benchmark cancelled"));
                    // The same draw for every method and configuration of this repeat.
                    std::mt19937_64 rng(m_options.seed * 1000003 + repeat * 7919 + samples);
                    QVector<int> order(m_target.size());
                    std::iota(order.begin(), order.end(), 0);
                    std::shuffle(order.begin(), order.end(), rng);
                    const TrainingData profiled = m_target.subset(order.mid(0, samples));
                    const TrainingData validation = m_target.subset(order.mid(samples));

                    QElapsedTimer timer;
                    timer.start();
                    const quint64 seed = m_options.seed + repeat;
                    Expected<PowerModel> model = method == QLatin1String("pt")
                        ? references.value(config)->transfer(m_deviceKind, m_deviceKind,
                                                             QStringLiteral("target"), profiled,
                                                             seed, true, callbacks)
                        : train(m_deviceKind, QStringLiteral("target"), profiled,
                                QStringLiteral("nn"), config, seed);
                    if (!model)
                        return passOn<Result>(model);
                    seconds += timer.nsecsElapsed() / 1e9;
                    const ModePredictions predicted = model->predict(validation.modes);
                    timeErrors.append(
                        meanAbsolutePercentageError(predicted.timeMs, validation.timeMs));
                    powerErrors.append(
                        meanAbsolutePercentageError(predicted.powerW, validation.powerW));
                    stepDone();
                }
                AccuracyRow row;
                row.method = config == QLatin1String("default")
                    ? method
                    : method + QStringLiteral("-baseline");
                row.config = config;
                row.samples = samples;
                row.repeats = m_options.repeats;
                row.timeMape = Quartiles::of(timeErrors);
                row.powerMape = Quartiles::of(powerErrors);
                row.seconds = seconds / m_options.repeats;
                rows.append(row);
                if (rowDone)
                    rowDone(row);
            }
        }
    }
    return rows;
}

}  // namespace ptwb
