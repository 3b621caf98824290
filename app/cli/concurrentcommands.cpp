#include "concurrentcommands.h"

#include "concurrentstudy.h"
#include "optimize/tradeoffspace.h"
#include "store/store.h"

#include <QJsonObject>
#include <QSaveFile>

namespace ptwb::cli {

namespace {

QString pickLine(const ConcurrentData &data, const QString &strategy,
                 const ConcurrentPickRecord &pick)
{
    QString mode = QStringLiteral(",,,,");
    if (pick.pair >= 0) {
        const PowerMode &m = data.modes[data.modeOf(pick.pair)];
        mode = QStringLiteral("%1,%2,%3,%4,%5")
                   .arg(m.cores)
                   .arg(m.cpuKHz)
                   .arg(m.gpuHz)
                   .arg(m.emcHz)
                   .arg(data.batchOf(pick.pair));
    }
    return QStringLiteral("%1,%2,%3,%4,%5,%6\n")
        .arg(strategy)
        .arg(pick.repeat)
        .arg(pick.problem.arrivalRate)
        .arg(pick.problem.latencyBudgetS)
        .arg(pick.problem.powerBudgetW)
        .arg(mode);
}

}  // namespace

void EvaluateConcurrentCommand::addOptions(QCommandLineParser &parser) const
{
    const QString strategies = ConcurrentStrategy::names().join(QLatin1Char(','));
    parser.addOptions({
        {QStringLiteral("train"), QStringLiteral("Training workload measurements (public layout)."),
         QStringLiteral("TRAIN.csv")},
        {QStringLiteral("infer"),
         QStringLiteral("Inference workload measurements (public inference layout, with bs)."),
         QStringLiteral("INFER.csv")},
        {QStringLiteral("train-reference"),
         QStringLiteral("Reference training workload (for pt and safe)."),
         QStringLiteral("REF.csv")},
        {QStringLiteral("infer-reference"),
         QStringLiteral("Reference inference workload (optional, for pt and safe)."),
         QStringLiteral("REF_INFER.csv")},
        {QStringLiteral("device"), QStringLiteral("Device kind of the files (default orin-agx)."),
         QStringLiteral("KIND"), QStringLiteral("orin-agx")},
        {QStringLiteral("arrival-rates"),
         QStringLiteral("Requests per second: FROM:TO:STEP or a list (default 30:120:10)."),
         QStringLiteral("RATES"), QStringLiteral("30:120:10")},
        {QStringLiteral("latency-budgets"),
         QStringLiteral("Latency budgets in seconds (default 0.5:2.0:0.1)."), QStringLiteral("S"),
         QStringLiteral("0.5:2.0:0.1")},
        {QStringLiteral("power-budgets"),
         QStringLiteral("Power budgets in watts (default 10:50:1)."), QStringLiteral("W"),
         QStringLiteral("10:50:1")},
        {QStringLiteral("strategies"), QStringLiteral("Some of %1 (default: all).").arg(strategies),
         QStringLiteral("LIST"), strategies},
        {QStringLiteral("samples"),
         QStringLiteral("Pairs per problem for nn, pt and safe (default 15)."), QStringLiteral("N"),
         QStringLiteral("15")},
        {QStringLiteral("repeats"), QStringLiteral("Repeats (default 5)."), QStringLiteral("N"),
         QStringLiteral("5")},
        {QStringLiteral("seed"), QStringLiteral("Seed of the draws (default 0)."),
         QStringLiteral("N"), QStringLiteral("0")},
        {QStringLiteral("picks"),
         QStringLiteral("Write every answer to this CSV: strategy,repeat,arrival_rate,"
                        "latency_budget_s,power_budget_w,cores,cpu,gpu,mem,bs."),
         QStringLiteral("FILE.csv")},
    });
}

QString EvaluateConcurrentCommand::optionFor(InputField field) const
{
    switch (field) {
    case InputField::DeviceKind:
        return QStringLiteral("device");
    case InputField::ArrivalRate:
        return QStringLiteral("arrival-rates");
    case InputField::LatencyBudget:
        return QStringLiteral("latency-budgets");
    case InputField::PowerBudget:
        return QStringLiteral("power-budgets");
    default:
        return defaultOptionFor(field);
    }
}

int EvaluateConcurrentCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("train"), QStringLiteral("infer")}, output,
                        &exitCode))
        return exitCode;
    ConcurrentEvaluationOptions options;
    options.strategies = parser.value(QStringLiteral("strategies")).split(QLatin1Char(','));
    const auto range = [&](const char *option, InputField field, const char *example) {
        return ConcurrentGrid::parseRange(parser.value(QLatin1String(option)), field,
                                          QLatin1String(example));
    };
    const auto rates = range("arrival-rates", InputField::ArrivalRate, "30:120:10");
    const auto latencies = range("latency-budgets", InputField::LatencyBudget, "0.5:2.0:0.1");
    const auto powers = range("power-budgets", InputField::PowerBudget, "10:50:1");
    for (const auto *parsed : {&rates, &latencies, &powers}) {
        if (!*parsed)
            return output.fail(*parsed);
    }
    options.grid = {*rates, *latencies, *powers};
    bool a = false, b = false, c = false;
    options.samples = parser.value(QStringLiteral("samples")).toInt(&a);
    options.repeats = parser.value(QStringLiteral("repeats")).toInt(&b);
    options.seed = parser.value(QStringLiteral("seed")).toULongLong(&c);
    if (!a || !b || !c || options.repeats < 1)
        return output.badUsage(
            QStringLiteral("--samples, --repeats and --seed take whole numbers"));

    workflows::ConcurrentFiles files;
    files.training = parser.value(QStringLiteral("train"));
    files.inference = parser.value(QStringLiteral("infer"));
    files.trainingReference = parser.value(QStringLiteral("train-reference"));
    files.inferenceReference = parser.value(QStringLiteral("infer-reference"));
    files.deviceKind = parser.value(QStringLiteral("device"));
    Expected<ConcurrentEvaluator> evaluator = workflows::concurrentEvaluator(files, options);
    if (!evaluator)
        return output.fail(evaluator);

    // The picks go to a temporary file that replaces FILE only when the run completes.
    std::unique_ptr<QSaveFile> picks;
    if (parser.isSet(QStringLiteral("picks"))) {
        picks = std::make_unique<QSaveFile>(parser.value(QStringLiteral("picks")));
        if (!picks->open(QIODevice::WriteOnly))
            return output.failAbout(InputField::None,
                                    QStringLiteral("--picks: %1: cannot write: %2")
                                        .arg(picks->fileName(), picks->errorString()),
                                    ErrorKind::Failed);
        picks->write("strategy,repeat,arrival_rate,latency_budget_s,power_budget_w,cores,cpu,gpu,"
                     "mem,bs\n");
        const ConcurrentData &data = evaluator->target();
        evaluator->setPickSink(
            [&picks, &data](const QString &strategy, const ConcurrentPickRecord &pick) {
                picks->write(pickLine(data, strategy, pick).toUtf8());
            });
    }

    if (!output.json()) {
        output.line(QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9")
                        .arg(QStringLiteral("strategy"), -9)
                        .arg(QStringLiteral("problems"), 9)
                        .arg(QStringLiteral("shortfall %"), 12)
                        .arg(QStringLiteral("optimal %"), 10)
                        .arg(QStringLiteral("feasible %"), 11)
                        .arg(QStringLiteral("violations %"), 13)
                        .arg(QStringLiteral("per problem"), 12)
                        .arg(QStringLiteral("profiled"), 9)
                        .arg(QStringLiteral("s/repeat"), 9));
    }
    const auto done = [&output](const ConcurrentMetrics &m) {
        const std::optional<ConcurrentMetrics::PredictionError> &e = m.predictionError;
        if (output.json()) {
            QJsonObject object {
                {QStringLiteral("strategy"), m.strategy},
                {QStringLiteral("problems"), m.problems},
                {QStringLiteral("throughput_shortfall_median"), m.throughputShortfallMedian},
                {QStringLiteral("throughput_shortfall_q1"), m.throughputShortfall.q1},
                {QStringLiteral("throughput_shortfall_q3"), m.throughputShortfall.q3},
                {QStringLiteral("exactly_optimal"), m.exactlyOptimal},
                {QStringLiteral("feasible_found"), m.feasibleFound},
                {QStringLiteral("violations"), m.violations},
                {QStringLiteral("profiled_per_problem"), m.profiledPerProblem},
                {QStringLiteral("profiled"), m.profiled},
                {QStringLiteral("seconds"), m.seconds}};
            if (e) {
                object.insert(QStringLiteral("train_time_mape"), e->trainTime);
                object.insert(QStringLiteral("train_power_mape"), e->trainPower);
                object.insert(QStringLiteral("infer_time_mape"), e->inferTime);
                object.insert(QStringLiteral("infer_power_mape"), e->inferPower);
            }
            output.object(object);
            return;
        }
        output.line(QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9")
                        .arg(m.strategy, -9)
                        .arg(m.problems, 9)
                        .arg(m.throughputShortfallMedian, 12, 'f', 2)
                        .arg(m.exactlyOptimal, 10, 'f', 1)
                        .arg(m.feasibleFound, 11, 'f', 1)
                        .arg(m.violations, 13, 'f', 2)
                        .arg(m.profiledPerProblem, 12, 'f', 1)
                        .arg(m.profiled, 9, 'f', 1)
                        .arg(m.seconds, 9, 'f', 3));
        if (e)
            output.line(QStringLiteral("          its predictions from the shared pairs (MAPE): "
                                       "training %1 % time, %2 % power; inference %3 % time, "
                                       "%4 % power")
                            .arg(e->trainTime, 0, 'f', 1)
                            .arg(e->trainPower, 0, 'f', 1)
                            .arg(e->inferTime, 0, 'f', 1)
                            .arg(e->inferPower, 0, 'f', 1));
    };
    const auto log = [&output](const QString &line) { output.err() << line << Qt::endl; };
    const Expected<QVector<ConcurrentMetrics>> results = evaluator->run(done, log);
    if (!results)
        return output.fail(results);
    if (picks && !picks->commit())
        return output.failAbout(InputField::None,
                                QStringLiteral("--picks: %1: cannot write: %2")
                                    .arg(picks->fileName(), picks->errorString()),
                                ErrorKind::Failed);
    return kExitOk;
}

void RecommendConcurrentCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOptions({
        {QStringLiteral("device"),
         QStringLiteral("Device in the store (default: the one the training workload was "
                        "measured on)."),
         QStringLiteral("NAME")},
        {QStringLiteral("train"), QStringLiteral("Training workload in the store."),
         QStringLiteral("W")},
        {QStringLiteral("infer"), QStringLiteral("Inference workload in the store."),
         QStringLiteral("W")},
        {QStringLiteral("arrival-rate"), QStringLiteral("Inference requests per second."),
         QStringLiteral("RATE")},
        {QStringLiteral("latency-budget"),
         QStringLiteral("Longest a request may wait for its answer, in seconds."),
         QStringLiteral("S")},
        {QStringLiteral("power-budget"), QStringLiteral("Power budget in watts."),
         QStringLiteral("W")},
        {QStringLiteral("safety"),
         QStringLiteral("Keep this many standard deviations of the predictions inside the "
                        "budgets (default 0)."),
         QStringLiteral("SIGMAS"), QStringLiteral("0")},
    });
}

int RecommendConcurrentCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser,
                        {QStringLiteral("train"), QStringLiteral("infer"),
                         QStringLiteral("arrival-rate"), QStringLiteral("latency-budget"),
                         QStringLiteral("power-budget")},
                        output, &exitCode))
        return exitCode;
    const auto positive = [&](const char *option, InputField field, double *value) {
        bool ok = false;
        *value = parser.value(QLatin1String(option)).toDouble(&ok);
        if (ok && *value > 0 && std::isfinite(*value))
            return true;
        output.failAbout(field,
                         QStringLiteral("'%1': expected a positive number")
                             .arg(parser.value(QLatin1String(option))),
                         ErrorKind::BadInput);
        return false;
    };
    ConcurrentProblem problem;
    double sigmas = 0;
    if (!positive("arrival-rate", InputField::ArrivalRate, &problem.arrivalRate) ||
        !positive("latency-budget", InputField::LatencyBudget, &problem.latencyBudgetS) ||
        !positive("power-budget", InputField::PowerBudget, &problem.powerBudgetW))
        return kExitBadInput;
    bool sigmasOk = false;
    sigmas = parser.value(QStringLiteral("safety")).toDouble(&sigmasOk);
    if (!sigmasOk || sigmas < 0 || sigmas > 5)
        return output.badUsage(QStringLiteral("--safety: expected 0 to 5 standard deviations"));

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    const Expected<ConcurrentSpace> space = workflows::loadConcurrentSpace(
        **store, parser.value(QStringLiteral("device")), parser.value(QStringLiteral("train")),
        parser.value(QStringLiteral("infer")));
    if (!space)
        return output.fail(space);
    const ConcurrentSpace::Choice choice = space->choose(problem, sigmas);
    if (choice.pair < 0) {
        if (output.json())
            output.object({{QStringLiteral("feasible"), false},
                           {QStringLiteral("candidates"), space->pairCount()}});
        else
            output.line(QStringLiteral("No mode and batch size is predicted to meet a %1 s "
                                       "latency at %2 requests/s within %3 W.")
                            .arg(problem.latencyBudgetS)
                            .arg(problem.arrivalRate)
                            .arg(problem.powerBudgetW));
        return kExitOk;
    }
    const ConcurrentData &data = space->data();
    const PowerMode &mode = data.modes[data.modeOf(choice.pair)];
    const int batch = data.batchOf(choice.pair);
    const ConcurrentOutcome &o = choice.outcome;
    const QString source =
        space->isMeasured(choice.pair) ? QStringLiteral("measured") : QStringLiteral("predicted");
    const qint64 modelId = space->training().modelId();
    if (output.json()) {
        QJsonObject object {{QStringLiteral("feasible"), true},
                            {QStringLiteral("mode"), mode.toCanonical()},
                            {QStringLiteral("mode_short"), mode.toShort()},
                            {QStringLiteral("batch"), batch},
                            {QStringLiteral("minibatches_per_cycle"), o.minibatchesPerCycle},
                            {QStringLiteral("throughput"), o.throughput},
                            {QStringLiteral("latency_s"), o.latencyS},
                            {QStringLiteral("power_w"), o.powerW},
                            {QStringLiteral("source"), source},
                            {QStringLiteral("candidates"), space->pairCount()},
                            {QStringLiteral("measured_pairs"), space->measuredPairs()}};
        if (modelId > 0)
            object.insert(QStringLiteral("model_id"), modelId);
        output.object(object);
        return kExitOk;
    }
    output.line(QStringLiteral("%1   %2, inference batch %3")
                    .arg(mode.toCanonical(), mode.toShort())
                    .arg(batch));
    output.line(QStringLiteral("  training %1 minibatches/s (%2 per %3 s cycle), latency %4 s, "
                               "power %5 W (%6)")
                    .arg(o.throughput, 0, 'f', 2)
                    .arg(o.minibatchesPerCycle)
                    .arg(batch / problem.arrivalRate, 0, 'f', 3)
                    .arg(o.latencyS, 0, 'f', 3)
                    .arg(o.powerW, 0, 'f', 2)
                    .arg(source));
    output.line(
        QStringLiteral("  from %1 pairs, %2 measured%3")
            .arg(space->pairCount())
            .arg(space->measuredPairs())
            .arg(modelId > 0
                     ? QStringLiteral(" (model %1 for unmeasured training modes)").arg(modelId)
                     : QString()));
    return kExitOk;
}

}  // namespace ptwb::cli
