#include "batchrecommend.h"

#include "batchchoice.h"
#include "store/store.h"

#include <QJsonArray>
#include <QLocale>

#include <cmath>

namespace ptwb::cli {

namespace {

QString hours(double seconds)
{
    if (seconds >= 3600)
        return QStringLiteral("%1 h").arg(seconds / 3600, 0, 'f', 2);
    if (seconds >= 60)
        return QStringLiteral("%1 min").arg(seconds / 60, 0, 'f', 1);
    return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
}

QString kilojoules(double joules)
{
    return joules >= 1e6 ? QStringLiteral("%1 MJ").arg(joules / 1e6, 0, 'f', 2)
                         : QStringLiteral("%1 kJ").arg(joules / 1e3, 0, 'f', 1);
}

QJsonObject pickJson(const BatchPick &pick)
{
    return {{QStringLiteral("batch"), pick.batch},
            {QStringLiteral("mode"), pick.mode.toCanonical()},
            {QStringLiteral("mode_short"), pick.mode.toShort()},
            {QStringLiteral("time_ms"), pick.timeMs},
            {QStringLiteral("power_w"), pick.powerW},
            {QStringLiteral("peak_w"), pick.peakW},
            {QStringLiteral("minibatches"), pick.minibatches},
            {QStringLiteral("seconds"), pick.seconds},
            {QStringLiteral("joules"), pick.joules}};
}

}  // namespace

bool isAccuracyObjective(const QString &objective)
{
    return objective == QLatin1String("time-to-accuracy") ||
        objective == QLatin1String("energy-to-accuracy");
}

int recommendBatchAndMode(const QCommandLineParser &parser, Output &output)
{
    const QString objectiveText = parser.value(QStringLiteral("objective"));
    if (!parser.isSet(QStringLiteral("power-budget")) ||
        parser.isSet(QStringLiteral("time-budget"))) {
        return output.badUsage(QStringLiteral("--objective %1: give --power-budget W (a cap on "
                                              "the peak power), not --time-budget")
                                   .arg(objectiveText));
    }
    bool ok = false;
    const double cap = parser.value(QStringLiteral("power-budget")).toDouble(&ok);
    if (!ok || !(cap > 0) || !std::isfinite(cap))
        return output.badUsage(QStringLiteral("--power-budget: expected a positive number"));
    const AccuracyObjective objective = objectiveText == QLatin1String("energy-to-accuracy")
        ? AccuracyObjective::Energy
        : AccuracyObjective::Time;

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    const Expected<workflows::BatchSpace> space = workflows::loadBatchSpace(
        **store, parser.value(QStringLiteral("workload")), parser.value(QStringLiteral("device")),
        parser.isSet(QStringLiteral("observed-only")));
    if (!space)
        return output.fail(space);
    const QVector<BatchPick> perBatch =
        BatchChoice::bestPerBatch(space->batches, space->relation, cap, objective);
    const std::optional<BatchPick> best =
        BatchChoice::choose(space->batches, space->relation, cap, objective);
    const QString target = space->relation.targetAccuracy
        ? QStringLiteral("accuracy %1").arg(*space->relation.targetAccuracy)
        : QStringLiteral("the target accuracy");

    if (output.json()) {
        QJsonArray batches;
        for (const BatchPick &pick : perBatch)
            batches.append(pickJson(pick));
        QJsonObject object {
            {QStringLiteral("workload"), space->workload},
            {QStringLiteral("device"), space->device},
            {QStringLiteral("objective"), objectiveText},
            {QStringLiteral("power_budget"), cap},
            {QStringLiteral("fits"), best.has_value()},
            {QStringLiteral("convergence_provenance"), space->relation.provenance},
            {QStringLiteral("per_batch"), batches},
            {QStringLiteral("sources"), QJsonArray::fromStringList(space->sources)}};
        if (best)
            object.insert(QStringLiteral("pick"), pickJson(*best));
        output.object(object);
        return kExitOk;
    }
    if (!best) {
        output.line(QStringLiteral("No (mode, batch) of workload '%1' stays under %2 W of peak "
                                   "power.")
                        .arg(space->workload)
                        .arg(cap));
        return kExitOk;
    }
    const QLocale locale = QLocale::c();
    output.line(QStringLiteral("batch %1 at %2   %3")
                    .arg(best->batch)
                    .arg(best->mode.toCanonical(), best->mode.toShort()));
    output.line(QStringLiteral("  to %1: %2 minibatches, %3, %4")
                    .arg(target, locale.toString(qint64(std::ceil(best->minibatches))),
                         hours(best->seconds), kilojoules(best->joules)));
    output.line(QStringLiteral("  per minibatch: %1 ms, median %2 W, peak %3 W (cap %4 W)")
                    .arg(best->timeMs, 0, 'f', 1)
                    .arg(best->powerW, 0, 'f', 2)
                    .arg(best->peakW, 0, 'f', 2)
                    .arg(cap));
    output.line(QStringLiteral("  samples to accuracy: %1 (%2)")
                    .arg(space->relation.provenance == QLatin1String("simulated")
                             ? QStringLiteral("SIMULATED")
                             : space->relation.provenance,
                         // SIMULATED is said once, by the label
                         QString(space->relation.source).remove(QStringLiteral(" (SIMULATED)"))));
    output.line(QStringLiteral("  best mode per batch size under the cap:"));
    for (const BatchPick &pick : perBatch) {
        output.line(QStringLiteral("    %1  %2  %3  %4  peak %5 W")
                        .arg(pick.batch, 5)
                        .arg(pick.mode.toShort(), -22)
                        .arg(hours(pick.seconds), 9)
                        .arg(kilojoules(pick.joules), 10)
                        .arg(pick.peakW, 0, 'f', 1));
    }
    for (const QString &source : space->sources)
        output.line(QStringLiteral("  %1").arg(source));
    return kExitOk;
}

}  // namespace ptwb::cli
