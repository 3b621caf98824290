#include "optimizecommands.h"

#include "batchevaluate.h"
#include "batchrecommend.h"

#include "optimize/evaluation.h"
#include "optimize/tradeoffspace.h"
#include "store/store.h"
#include "util/numbertext.h"

#include <QJsonObject>

namespace ptwb::cli {

namespace {

// The candidates of the command line's --db, --workload, --device and --observed-only.
Expected<TradeoffSpace> candidatesFor(const QCommandLineParser &parser)
{
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return passOn<Expected<TradeoffSpace>>(store);
    return TradeoffSpace::load(**store, parser.value(QStringLiteral("workload")),
                               parser.value(QStringLiteral("device")),
                               parser.isSet(QStringLiteral("observed-only")));
}

QString percent(double value)
{
    return QStringLiteral("%1%2 %")
        .arg(value >= 0 ? QStringLiteral("+") : QString())
        .arg(value, 0, 'f', 1);
}

}  // namespace

void RecommendCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption(
        {QStringLiteral("workload"), QStringLiteral("Workload."), QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device, when the workload was measured on several."),
                      QStringLiteral("DEVICE")});
    parser.addOption({QStringLiteral("power-budget"), QStringLiteral("Power budget in watts."),
                      QStringLiteral("W")});
    parser.addOption({QStringLiteral("time-budget"),
                      QStringLiteral("Minibatch time budget in milliseconds."),
                      QStringLiteral("MS")});
    parser.addOption({QStringLiteral("objective"),
                      QStringLiteral("time (fastest within a power budget, lowest power within a "
                                     "time budget; default), energy (lowest energy), or "
                                     "time-to-accuracy / energy-to-accuracy: the training batch "
                                     "size and mode with the least time (energy) to the target "
                                     "accuracy, with a power budget on the peak power (needs the "
                                     "workload swept at several batch sizes and ptwb "
                                     "convergence)."),
                      QStringLiteral("OBJECTIVE"), QStringLiteral("time")});
    parser.addOption({QStringLiteral("observed-only"),
                      QStringLiteral("Choose among measured modes only, ignoring models.")});
    parser.addOption({QStringLiteral("safety"),
                      QStringLiteral("The safe pick: a predicted mode counts as within the budget "
                                     "only with this many of the model's standard deviations to "
                                     "spare (1 = 84 % one-sided confidence; default 0)."),
                      QStringLiteral("SIGMAS"), QStringLiteral("0")});
}

int RecommendCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("workload")}, output, &exitCode))
        return exitCode;
    if (isAccuracyObjective(parser.value(QStringLiteral("objective"))))
        return recommendBatchAndMode(parser, output);
    const bool hasPower = parser.isSet(QStringLiteral("power-budget"));
    const bool hasTime = parser.isSet(QStringLiteral("time-budget"));
    if (hasPower == hasTime)
        return output.badUsage(QStringLiteral("give exactly one of --power-budget W and "
                                              "--time-budget MS"));
    bool ok = false;
    const double budget =
        parser.value(hasPower ? QStringLiteral("power-budget") : QStringLiteral("time-budget"))
            .toDouble(&ok);
    if (!ok || budget <= 0 || !std::isfinite(budget))
        return output.badUsage(
            QStringLiteral("--%1: expected a positive number")
                .arg(hasPower ? QStringLiteral("power-budget") : QStringLiteral("time-budget")));
    const QString objective = parser.value(QStringLiteral("objective"));
    if (objective != QLatin1String("time") && objective != QLatin1String("energy"))
        return output.badUsage(QStringLiteral("--objective: expected time, energy, "
                                              "time-to-accuracy or energy-to-accuracy"));

    const Expected<TradeoffSpace> found = candidatesFor(parser);
    if (!found)
        return output.fail(found);
    Budget query;
    query.kind = hasPower ? Budget::Kind::Power : Budget::Kind::Time;
    query.value = budget;
    query.objective =
        objective == QLatin1String("energy") ? Budget::Objective::Energy : Budget::Objective::Time;
    bool sigmasOk = false;
    query.safetySigmas = parser.value(QStringLiteral("safety")).toDouble(&sigmasOk);
    if (!sigmasOk || query.safetySigmas < 0 || query.safetySigmas > 5)
        return output.badUsage(QStringLiteral("--safety: expected 0..5 standard deviations"));
    const std::optional<Recommendation> answer = found->recommend(query);
    if (!answer)
        return output.fail(QStringLiteral("no candidate modes"), ErrorKind::BadInput);

    const TradeoffSpace &d = *found;
    const int row = answer->index;
    const PowerMode mode = d.mode(row);
    const double timeMs = d.timeMs(row);
    const double powerW = d.powerW(row);
    const QString unit = hasPower ? QStringLiteral("W") : QStringLiteral("ms");
    const QString source =
        d.isObserved(row) ? QStringLiteral("observed") : QStringLiteral("predicted");
    if (output.json()) {
        QJsonObject object {{QStringLiteral("fits"), answer->fits},
                            {QStringLiteral("mode"), mode.toCanonical()},
                            {QStringLiteral("mode_short"), mode.toShort()},
                            {QStringLiteral("time_ms"), timeMs},
                            {QStringLiteral("power_w"), powerW},
                            {QStringLiteral("energy_j"), timeMs * powerW / 1000},
                            {QStringLiteral("source"), source},
                            {QStringLiteral("budget"), budget},
                            {QStringLiteral("budget_unit"), unit},
                            {QStringLiteral("objective"), objective},
                            {QStringLiteral("candidates"), d.size()}};
        if (d.modelId() > 0)
            object.insert(QStringLiteral("model_id"), d.modelId());
        if (!d.isObserved(row) && d.hasUncertainty()) {
            object.insert(QStringLiteral("time_std_ms"), d.predictedTimeStdMs(row));
            object.insert(QStringLiteral("power_std_w"), d.predictedPowerStdW(row));
        }
        if (answer->safetyCostPercent)
            object.insert(QStringLiteral("safety_cost_percent"), *answer->safetyCostPercent);
        if (answer->vsMaxn) {
            object.insert(QStringLiteral("time_vs_maxn_percent"), answer->vsMaxn->timePercent);
            object.insert(QStringLiteral("power_vs_maxn_percent"), answer->vsMaxn->powerPercent);
            object.insert(QStringLiteral("energy_vs_maxn_percent"), answer->vsMaxn->energyPercent);
        }
        if (answer->vsPreset) {
            object.insert(QStringLiteral("preset"), answer->vsPreset->against);
            object.insert(QStringLiteral("time_vs_preset_percent"), answer->vsPreset->timePercent);
            object.insert(QStringLiteral("power_vs_preset_percent"),
                          answer->vsPreset->powerPercent);
            object.insert(QStringLiteral("energy_vs_preset_percent"),
                          answer->vsPreset->energyPercent);
        }
        output.object(object);
        return kExitOk;
    }
    if (!answer->fits) {
        output.line(QStringLiteral("No mode fits a %1 %2 budget. The closest is %3 (%4): %5 ms, "
                                   "%6 W (%7).")
                        .arg(budget)
                        .arg(unit, mode.toCanonical(), mode.toShort())
                        .arg(timeMs, 0, 'f', 1)
                        .arg(powerW, 0, 'f', 2)
                        .arg(source));
        return kExitOk;
    }
    output.line(QStringLiteral("%1   %2").arg(mode.toCanonical(), mode.toShort()));
    const bool spread = !d.isObserved(row) && d.hasUncertainty();
    output.line(QStringLiteral("  time %1%2 ms, power %3%4 W, energy %5 J per minibatch (%6)")
                    .arg(timeMs, 0, 'f', 1)
                    .arg(spread ? QStringLiteral(" ± %1").arg(d.predictedTimeStdMs(row), 0, 'f', 1)
                                : QString())
                    .arg(powerW, 0, 'f', 2)
                    .arg(spread ? QStringLiteral(" ± %1").arg(d.predictedPowerStdW(row), 0, 'f', 2)
                                : QString())
                    .arg(timeMs * powerW / 1000, 0, 'f', 2)
                    .arg(source));
    if (answer->safetyCostPercent)
        output.line(QStringLiteral("  the safe pick (%1 % confidence) costs %2 over the plain one")
                        .arg(100 * Budget::confidenceOf(query.safetySigmas), 0, 'f', 0)
                        .arg(percent(*answer->safetyCostPercent)));
    for (const std::optional<Comparison> &other : {answer->vsMaxn, answer->vsPreset}) {
        if (!other)
            continue;
        output.line(QStringLiteral("  against %1: time %2, power %3, energy %4")
                        .arg(other->against == QLatin1String("MAXN")
                                 ? other->against
                                 : QStringLiteral("the best stock preset (%1)").arg(other->against),
                             percent(other->timePercent), percent(other->powerPercent),
                             percent(other->energyPercent)));
    }
    output.line(QStringLiteral("  from %1 candidate modes%2")
                    .arg(d.size())
                    .arg(d.modelId() > 0
                             ? QStringLiteral(" (model %1 for unmeasured modes)").arg(d.modelId())
                             : QStringLiteral(" (measured only)")));
    return kExitOk;
}

void ParetoCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption(
        {QStringLiteral("workload"), QStringLiteral("Workload."), QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device, when the workload was measured on several."),
                      QStringLiteral("DEVICE")});
    parser.addOption(
        {QStringLiteral("observed-only"), QStringLiteral("The front of the measured modes only.")});
    parser.addOption({QStringLiteral("out"), QStringLiteral("CSV file, or - (default)."),
                      QStringLiteral("FILE.csv"), QStringLiteral("-")});
}

int ParetoCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("workload")}, output, &exitCode))
        return exitCode;
    const Expected<TradeoffSpace> found = candidatesFor(parser);
    if (!found)
        return output.fail(found);
    const TradeoffSpace &d = *found;
    const QVector<TradeoffPoint> &front = d.front().powerTime();
    const auto sourceOf = [&d](int i) {
        return d.isObserved(i) ? QStringLiteral("observed") : QStringLiteral("predicted");
    };
    if (output.json()) {
        for (const TradeoffPoint &p : front) {
            output.object({{QStringLiteral("mode"), d.mode(p.mode).toCanonical()},
                           {QStringLiteral("time_ms"), p.timeMs},
                           {QStringLiteral("power_w"), p.powerW},
                           {QStringLiteral("source"), sourceOf(p.mode)}});
        }
        return kExitOk;
    }
    QByteArray csv = "cores,cpu,gpu,mem,time_ms,power_w,energy_j,source\n";
    for (const TradeoffPoint &p : front) {
        appendModeColumns(csv, d.mode(p.mode));
        appendShortest(csv, p.timeMs);
        csv += ',';
        appendShortest(csv, p.powerW);
        csv += ',';
        appendShortest(csv, p.energy() / 1000);
        csv += ',' + sourceOf(p.mode).toLatin1() + '\n';
    }
    const QString outPath = parser.value(QStringLiteral("out"));
    if (const int code = writeOutput(output, outPath, csv); code != kExitOk || outPath == "-")
        return code;
    output.err() << QStringLiteral("%1 front modes written to %2").arg(front.size()).arg(outPath)
                 << Qt::endl;
    return kExitOk;
}

void EvaluateCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption({QStringLiteral("reference"),
                      QStringLiteral("Reference workload measurements (for pt and safe)."),
                      QStringLiteral("REF.csv")});
    parser.addOption({QStringLiteral("target"),
                      QStringLiteral("Target workload measurements: the candidate modes."),
                      QStringLiteral("TGT.csv")});
    addDeviceKindOptions(parser);
    parser.addOption({QStringLiteral("samples"),
                      QStringLiteral("Modes profiled by rnd, nn, pt and safe (default 50)."),
                      QStringLiteral("N"), QStringLiteral("50")});
    parser.addOption({QStringLiteral("budgets"),
                      QStringLiteral("Power budgets: FROM:TO:STEP or a list (default 17:50:1)."),
                      QStringLiteral("W"), QStringLiteral("17:50:1")});
    parser.addOption(
        {QStringLiteral("strategies"),
         QStringLiteral("Some of %1 (default: all).").arg(Strategy::names().join(QLatin1Char(','))),
         QStringLiteral("LIST"), Strategy::names().join(QLatin1Char(','))});
    parser.addOption({QStringLiteral("repeats"), QStringLiteral("Repeats (default 10)."),
                      QStringLiteral("N"), QStringLiteral("10")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of the draws (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("objective"),
                      QStringLiteral("time-to-accuracy or energy-to-accuracy: evaluate the "
                                     "co-selection of training batch size and mode instead "
                                     "(the study's baselines, the oracle and ours; the same as "
                                     "ptwb evaluate-batch): --workload and --power-budgets (or "
                                     "--budgets) from --db, --device the store's device; "
                                     "--samples, --repeats default to 20 and 5 there."),
                      QStringLiteral("OBJECTIVE")});
    addBatchEvaluationOptions(parser);  // --power-budgets: with an accuracy --objective
}

int EvaluateCommand::run(const QCommandLineParser &parser, Output &output) const
{
    if (parser.isSet(QStringLiteral("objective"))) {
        if (!isAccuracyObjective(parser.value(QStringLiteral("objective")))) {
            return output.badUsage(QStringLiteral("--objective: expected time-to-accuracy or "
                                                  "energy-to-accuracy (the mode evaluation "
                                                  "scores time and energy without one)"));
        }
        for (const char *option : {"reference", "target"}) {
            if (parser.isSet(QLatin1String(option)))
                return output.badUsage(QStringLiteral("--%1: not with an accuracy --objective "
                                                      "(its workload comes from --db)")
                                           .arg(QLatin1String(option)));
        }
        const bool caps = parser.isSet(QStringLiteral("power-budgets"));
        return evaluateBatch(parser, output,
                             caps || !parser.isSet(QStringLiteral("budgets"))
                                 ? QStringLiteral("power-budgets")
                                 : QStringLiteral("budgets"));
    }
    for (const char *option :
         {"db", "workload", "reference-workload", "proxy-samples", "power-budgets"}) {
        if (parser.isSet(QLatin1String(option)))
            return output.badUsage(QStringLiteral("--%1: only with --objective time-to-accuracy "
                                                  "or energy-to-accuracy")
                                       .arg(QLatin1String(option)));
    }
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("target")}, output, &exitCode))
        return exitCode;
    const DeviceKinds kinds = deviceKinds(parser);
    const QString &kind = kinds.target;
    EvaluationOptions options;
    options.strategies = parser.value(QStringLiteral("strategies")).split(QLatin1Char(','));
    const bool needsReference = options.needsReference();
    if (needsReference && parser.value(QStringLiteral("reference")).isEmpty())
        return output.badUsage(QStringLiteral("pt and safe need --reference REF.csv"));
    const Expected<TrainingData> target =
        readTrainingData(parser.value(QStringLiteral("target")), kind, InputField::Target);
    if (!target)
        return output.fail(target);
    TrainingData reference;
    if (needsReference) {
        const Expected<TrainingData> read = readTrainingData(
            parser.value(QStringLiteral("reference")), kinds.reference, InputField::Reference);
        if (!read)
            return output.fail(read);
        reference = *read;
    }
    const Expected<QVector<double>> budgets =
        EvaluationOptions::parseBudgets(parser.value(QStringLiteral("budgets")));
    if (!budgets)
        return output.fail(budgets);
    options.budgetsW = *budgets;
    bool a = false, b = false, c = false;
    options.samples = parser.value(QStringLiteral("samples")).toInt(&a);
    options.repeats = parser.value(QStringLiteral("repeats")).toInt(&b);
    options.seed = parser.value(QStringLiteral("seed")).toULongLong(&c);
    if (!a || !b || !c || options.repeats < 1)
        return output.badUsage(
            QStringLiteral("--samples, --repeats and --seed take whole numbers"));

    if (!output.json()) {
        output.line(QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9")
                        .arg(QStringLiteral("strategy"), -9)
                        .arg(QStringLiteral("profiled"), 9)
                        .arg(QStringLiteral("per budget"), 10)
                        .arg(QStringLiteral("time pen. %"), 12)
                        .arg(QStringLiteral("energy pen. %"), 14)
                        .arg(QStringLiteral("excess W"), 9)
                        .arg(QStringLiteral("A/L %"), 7)
                        .arg(QStringLiteral("A/L+1 %"), 8)
                        .arg(QStringLiteral("s/repeat"), 9));
    }
    const auto done = [&output](const StrategyMetrics &m) {
        if (output.json()) {
            QJsonObject object {{QStringLiteral("strategy"), m.strategy},
                                {QStringLiteral("profiled"), m.profiled},
                                {QStringLiteral("profiled_per_budget"), m.profiledPerBudget},
                                {QStringLiteral("time_penalty_median"), m.timePenaltyMedian},
                                {QStringLiteral("energy_penalty_median"), m.energyPenaltyMedian},
                                {QStringLiteral("excess_power_area"), m.excessPowerArea},
                                {QStringLiteral("al"), m.al},
                                {QStringLiteral("al1"), m.al1},
                                {QStringLiteral("solutions"), m.solutions},
                                {QStringLiteral("seconds"), m.seconds}};
            for (const auto &[key, value] : m.distributionFields())
                object.insert(key, value);
            output.object(object);
            return;
        }
        output.line(QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9")
                        .arg(m.strategy, -9)
                        .arg(m.profiled, 9, 'f', 1)
                        .arg(m.profiledPerBudget, 10, 'f', 1)
                        .arg(m.timePenaltyMedian, 12, 'f', 2)
                        .arg(m.energyPenaltyMedian, 14, 'f', 2)
                        .arg(m.excessPowerArea, 9, 'f', 3)
                        .arg(m.al, 7, 'f', 1)
                        .arg(m.al1, 8, 'f', 1)
                        .arg(m.seconds, 9, 'f', 3));
    };
    const auto log = [&output](const QString &line) { output.err() << line << Qt::endl; };
    Evaluator evaluator(reference, *target, kind, options);
    evaluator.setReferenceKind(kinds.reference);
    const Expected<QVector<StrategyMetrics>> results = evaluator.run(done, log);
    if (!results)
        return output.fail(results);
    return kExitOk;
}

}  // namespace ptwb::cli
