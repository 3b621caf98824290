#include "batchevaluate.h"

#include "batchchoice.h"
#include "batchrecommend.h"
#include "store/store.h"
#include "util/numberrange.h"

namespace ptwb::cli {

namespace {

QString valueOr(const QCommandLineParser &parser, const QString &name, const QString &fallback)
{
    return parser.isSet(name) ? parser.value(name) : fallback;
}

QString batchOptionFor(InputField field, const QString &budgetsOption)
{
    switch (field) {
    case InputField::Reference:
        return QStringLiteral("reference-workload");
    case InputField::Budgets:
        return budgetsOption;
    case InputField::Training:
        return QStringLiteral("proxy-samples");
    default:
        return Command::defaultOptionFor(field);
    }
}

}  // namespace

void addBatchEvaluationOptions(QCommandLineParser &parser)
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("workload"),
                      QStringLiteral("The workload, measured at every mode of each batch size "
                                     "(the truth), with its samples-to-accuracy relation (ptwb "
                                     "convergence: taken as true)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("reference-workload"),
                      QStringLiteral("The reference pt transfers to each batch size (e.g. "
                                     "resnet18@16)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("power-budgets"),
                      QStringLiteral("Caps on the peak power: 20,30,40 or FROM:TO:STEP."),
                      QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("proxy-samples"),
                      QStringLiteral("What the proxy run measured (a convergence CSV): what every "
                                     "strategy but the oracle knows (default: the true relation)."),
                      QStringLiteral("FILE.csv")});
}

void EvaluateBatchCommand::addOptions(QCommandLineParser &parser) const
{
    addBatchEvaluationOptions(parser);
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device, when the workload was measured on several."),
                      QStringLiteral("DEVICE")});
    parser.addOption({QStringLiteral("samples"),
                      QStringLiteral("Profiled modes per batch size for pt and observed "
                                     "(default 20)."),
                      QStringLiteral("N"), QStringLiteral("20")});
    parser.addOption({QStringLiteral("repeats"), QStringLiteral("Repeats (default 5)."),
                      QStringLiteral("N"), QStringLiteral("5")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("objective"),
                      QStringLiteral("time (time to accuracy, default) or energy; also spelt "
                                     "time-to-accuracy, energy-to-accuracy as in ptwb evaluate."),
                      QStringLiteral("OBJECTIVE"), QStringLiteral("time")});
    parser.addOption({QStringLiteral("strategies"),
                      QStringLiteral("Comma-separated, of %1 (default: all).")
                          .arg(BatchEvaluator::strategyNames().join(QStringLiteral(", "))),
                      QStringLiteral("LIST")});
}

QString EvaluateBatchCommand::optionFor(InputField field) const
{
    return batchOptionFor(field, QStringLiteral("power-budgets"));
}

int EvaluateBatchCommand::run(const QCommandLineParser &parser, Output &output) const
{
    return evaluateBatch(parser, output, QStringLiteral("power-budgets"));
}

int evaluateBatch(const QCommandLineParser &parser, Output &output, const QString &budgetsOption)
{
    output.setOptionNames(
        [budgetsOption](InputField field) { return batchOptionFor(field, budgetsOption); });
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("workload"), budgetsOption}, output, &exitCode))
        return exitCode;
    BatchEvaluationOptions options;
    const Expected<QVector<double>> caps = parseNumberRange(
        parser.value(budgetsOption), InputField::Budgets, QStringLiteral("20,30,40"));
    if (!caps)
        return output.fail(caps);
    options.capsW = *caps;
    bool ok = true;
    options.samples = valueOr(parser, QStringLiteral("samples"), QStringLiteral("20")).toInt(&ok);
    if (!ok || options.samples < 2 || options.samples > 10000)
        return output.badUsage(QStringLiteral("--samples: expected 2..10000"));
    options.repeats = valueOr(parser, QStringLiteral("repeats"), QStringLiteral("5")).toInt(&ok);
    if (!ok || options.repeats < 1 || options.repeats > 1000)
        return output.badUsage(QStringLiteral("--repeats: expected 1..1000"));
    options.seed = valueOr(parser, QStringLiteral("seed"), QStringLiteral("0")).toULongLong(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--seed: expected a non-negative integer"));
    QString objective = valueOr(parser, QStringLiteral("objective"), QStringLiteral("time"));
    if (isAccuracyObjective(objective))
        objective = objective.section(QLatin1Char('-'), 0, 0);  // time-to-accuracy: time
    if (objective != QLatin1String("time") && objective != QLatin1String("energy"))
        return output.badUsage(QStringLiteral("--objective: expected time-to-accuracy (time) or "
                                              "energy-to-accuracy (energy)"));
    options.objective =
        objective == QLatin1String("energy") ? AccuracyObjective::Energy : AccuracyObjective::Time;
    if (parser.isSet(QStringLiteral("strategies")))
        options.strategies = parser.value(QStringLiteral("strategies")).split(QLatin1Char(','));

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    workflows::BatchEvaluationRequest request;
    request.workload = parser.value(QStringLiteral("workload"));
    request.device = valueOr(parser, QStringLiteral("device"), QString());
    request.referenceWorkload = parser.value(QStringLiteral("reference-workload"));
    request.proxySamplesFile = parser.value(QStringLiteral("proxy-samples"));
    request.options = options;
    const Expected<workflows::BatchEvaluationOutcome> outcome =
        workflows::runBatchEvaluation(**store, request);
    if (!outcome)
        return output.fail(outcome);
    const QVector<BatchStrategyResult> &results = outcome->results;
    const double seconds = outcome->seconds;
    if (output.json()) {
        for (const BatchStrategyResult &r : results) {
            output.object({{QStringLiteral("strategy"), r.strategy},
                           {QStringLiteral("penalty_median"), r.penaltyMedian},
                           {QStringLiteral("penalty_q1"), r.penaltyQ1},
                           {QStringLiteral("penalty_q3"), r.penaltyQ3},
                           {QStringLiteral("feasible_found"), r.found},
                           {QStringLiteral("violations"), r.violations},
                           {QStringLiteral("problems"), r.problems},
                           {QStringLiteral("profiled_per_batch"), r.profiledPerBatch},
                           {QStringLiteral("objective"), objective},
                           {QStringLiteral("seconds"), seconds}});
        }
        return kExitOk;
    }
    output.line(QStringLiteral("%1 to accuracy against the oracle; %2 caps x %3 repeats, %4 "
                               "batch sizes, samples to accuracy: %5")
                    .arg(objective)
                    .arg(options.capsW.size())
                    .arg(options.repeats)
                    .arg(outcome->batchSizes)
                    .arg(outcome->samplesProvenance));
    output.line(QStringLiteral("strategy   penalty % median [q1 q3]   found %  over cap %  "
                               "profiled/batch"));
    for (const BatchStrategyResult &r : results) {
        output.line(QStringLiteral("%1 %2 [%3 %4]   %5   %6   %7")
                        .arg(r.strategy, -10)
                        .arg(r.penaltyMedian, 7, 'f', 2)
                        .arg(r.penaltyQ1, 0, 'f', 2)
                        .arg(r.penaltyQ3, 0, 'f', 2)
                        .arg(r.found, 6, 'f', 1)
                        .arg(r.violations, 9, 'f', 1)
                        .arg(r.profiledPerBatch, 8, 'f', 0));
    }
    output.line(QStringLiteral("%1 s").arg(seconds, 0, 'f', 1));
    return kExitOk;
}

}  // namespace ptwb::cli
