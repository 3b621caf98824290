#include "convergencecommands.h"

#include "convergencesource.h"
#include "proxyconvergencecommand.h"
#include "store/convergencestore.h"
#include "store/store.h"
#include "sweep/sweepplan.h"

#include <QJsonArray>

#include <cmath>

namespace ptwb::cli {

namespace {

// The simulated device of --simulate: --kind, by default the AGX Orin (--kind has no default of
// its own: for an SSH device it is what the device reports).
QString simulatedKind(const QCommandLineParser &parser)
{
    const QString kind = parser.value(QStringLiteral("kind"));
    return kind.isEmpty() ? QStringLiteral("orin-agx") : kind;
}

const char kDefaultBatchSizes[] = "8,16,32,64,128";

QString samplesText(double samples)
{
    return samples == std::floor(samples) && std::fabs(samples) < 1e15
        ? QString::number(samples, 'f', 0)
        : QString::number(samples, 'g', 10);
}

QString provenanceText(const ConvergenceRelation &relation)
{
    if (relation.provenance == QLatin1String(ConvergenceProvenance::kSimulated))
        return QStringLiteral("simulated (SIMULATED by the simulator's model, not measured)");
    if (relation.provenance == QLatin1String(ConvergenceProvenance::kProxy))
        return QStringLiteral("proxy (measured by short proxy training runs)");
    if (relation.provenance == QLatin1String(ConvergenceProvenance::kUser))
        return QStringLiteral("user (entered or imported)");
    return relation.provenance;
}

void print(Output &output, const ConvergenceRelation &relation, bool stored)
{
    const int reference = relation.smallestBatch();
    const QVector<double> relative = relation.relativeTo(reference);
    if (output.json()) {
        QJsonArray points;
        for (int i = 0; i < relation.points.size(); ++i) {
            points.append(QJsonObject {{QStringLiteral("batch_size"), relation.points[i].batchSize},
                                       {QStringLiteral("samples"), relation.points[i].samples},
                                       {QStringLiteral("relative"), relative[i]}});
        }
        output.object(
            {{QStringLiteral("workload"), relation.workload},
             {QStringLiteral("provenance"), relation.provenance},
             {QStringLiteral("source"), relation.source},
             {QStringLiteral("target_accuracy"),
              relation.targetAccuracy ? QJsonValue(*relation.targetAccuracy) : QJsonValue()},
             {QStringLiteral("recorded_at"), relation.recordedAt},
             {QStringLiteral("reference_batch"), reference},
             {QStringLiteral("stored"), stored},
             {QStringLiteral("points"), points}});
        return;
    }
    output.line(QStringLiteral("samples to %1 of workload '%2', per training minibatch size")
                    .arg(relation.targetAccuracy
                             ? QStringLiteral("target accuracy %1").arg(*relation.targetAccuracy)
                             : QStringLiteral("the target accuracy"),
                         relation.workload));
    output.line(QStringLiteral("provenance: %1").arg(provenanceText(relation)));
    output.line(QStringLiteral("source: %1; recorded %2")
                    .arg(relation.source.isEmpty() ? QStringLiteral("-") : relation.source,
                         relation.recordedAt));
    output.line(QStringLiteral("%1  %2  %3")
                    .arg(QStringLiteral("batch"), 5)
                    .arg(QStringLiteral("samples"), 12)
                    .arg(QStringLiteral("relative to %1").arg(reference)));
    for (int i = 0; i < relation.points.size(); ++i) {
        output.line(QStringLiteral("%1  %2  %3")
                        .arg(relation.points[i].batchSize, 5)
                        .arg(samplesText(relation.points[i].samples), 12)
                        .arg(relative[i], 0, 'f', 3));
    }
}

}  // namespace

void ConvergenceCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("workload"),
                      QStringLiteral("The workload the relation belongs to (any device)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("import"),
                      QStringLiteral("Store the relation of a CSV file: batch_size and "
                                     "samples_to_target (or epochs_to_target with "
                                     "--dataset-samples), optionally target_accuracy "
                                     "(docs/data-format.md). Replaces the workload's relation."),
                      QStringLiteral("FILE.csv")});
    parser.addOption({QStringLiteral("dataset-samples"),
                      QStringLiteral("Training samples in one epoch, to turn the file's "
                                     "epochs_to_target into samples."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("simulate"),
                      QStringLiteral("Store the simulator's convergence model for a built-in "
                                     "workload (SIMULATED, not measured) of the simulated "
                                     "device --kind (default orin-agx; it only names batches "
                                     "that would not fit its memory). Replaces the workload's "
                                     "relation.")});
    parser.addOption({QStringLiteral("batch-sizes"),
                      QStringLiteral("With --simulate or --proxy: the minibatch sizes (default "
                                     "%1).")
                          .arg(QLatin1String(kDefaultBatchSizes)),
                      QStringLiteral("LIST"), QLatin1String(kDefaultBatchSizes)});
    parser.addOption({QStringLiteral("seed"),
                      QStringLiteral("With --simulate: seed of the model's run-to-run noise "
                                     "(default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption(
        {QStringLiteral("show"), QStringLiteral("Print the stored relation (the default).")});
    addProxyConvergenceOptions(parser);  // --kind among its SSH options
}

QString ConvergenceCommand::optionFor(InputField field) const
{
    return field == InputField::Run ? QStringLiteral("command") : defaultOptionFor(field);
}

int ConvergenceCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("workload")}, output, &exitCode))
        return exitCode;
    const bool importing = parser.isSet(QStringLiteral("import"));
    const bool simulating = parser.isSet(QStringLiteral("simulate"));
    const bool proxy = parser.isSet(QStringLiteral("proxy"));
    if (int(importing) + int(simulating) + int(proxy) + int(parser.isSet(QStringLiteral("show"))) >
        1) {
        return output.badUsage(
            QStringLiteral("convergence: --import, --simulate, --proxy and --show are "
                           "alternatives; give one"));
    }
    if (!importing && parser.isSet(QStringLiteral("dataset-samples")))
        return output.badUsage(QStringLiteral("--dataset-samples: only with --import"));
    if (!simulating && !proxy && parser.isSet(QStringLiteral("batch-sizes")))
        return output.badUsage(QStringLiteral("--batch-sizes: only with --simulate or --proxy"));
    for (const char *option : {"seed"}) {
        if (!simulating && parser.isSet(QLatin1String(option)))
            return output.badUsage(QStringLiteral("--%1: only with --simulate").arg(option));
    }
    if (const QString option = proxyOnlyOptionSet(parser); !proxy && !option.isEmpty())
        return output.badUsage(QStringLiteral("--%1: only with --proxy").arg(option));
    const QString workload = parser.value(QStringLiteral("workload"));

    std::optional<Expected<ConvergenceRelation>> relation;
    if (importing) {
        std::optional<double> datasetSamples;
        if (parser.isSet(QStringLiteral("dataset-samples"))) {
            bool ok = false;
            const QString text = parser.value(QStringLiteral("dataset-samples"));
            const qint64 samples = text.toLongLong(&ok);
            if (!ok || samples < 1) {
                return output.badUsage(QStringLiteral("--dataset-samples: '%1' is not a number "
                                                      "of samples; expected the training "
                                                      "samples in one epoch, e.g. 50000")
                                           .arg(text));
            }
            datasetSamples = double(samples);
        }
        relation = workflows::importedConvergence(parser.value(QStringLiteral("import")), workload,
                                                  datasetSamples);
    } else if (simulating || proxy) {
        const Expected<QVector<int>> batchSizes =
            SweepPlan::parseBatchSizes(parser.value(QStringLiteral("batch-sizes")));
        if (!batchSizes)
            return output.fail(batchSizes);
        bool ok = true;
        const quint64 seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
        if (!ok)
            return output.badUsage(QStringLiteral("--seed: expected a non-negative integer"));
        relation = proxy
            ? proxyConvergence(parser, output, *batchSizes)
            : workflows::simulatedConvergence(workload, *batchSizes, simulatedKind(parser), seed);
    }
    if (relation && !*relation)
        return output.fail(*relation);

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    ConvergenceStore convergence(**store);
    if (relation) {
        if (const Status stored = convergence.replace(**relation); !stored)
            return output.fail(stored);
    }
    const Expected<std::optional<ConvergenceRelation>> loaded = convergence.load(workload);
    if (!loaded)
        return output.fail(loaded);
    if (!loaded->has_value()) {
        return output.failAbout(InputField::Workload,
                                QStringLiteral("no samples-to-accuracy relation of workload '%1' "
                                               "in %2; store one with --import FILE.csv, "
                                               "--proxy or --simulate")
                                    .arg(workload, (*store)->path()),
                                ErrorKind::BadInput);
    }
    print(output, **loaded, relation.has_value());
    return kExitOk;
}

}  // namespace ptwb::cli
