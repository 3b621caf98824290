#include "benchcommand.h"

#include "accuracystudy.h"
#include "optimize/paretofront.h"
#include "predict/accuracybench.h"
#include "store/importer.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QTemporaryDir>

#include <sys/resource.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <tuple>

namespace ptwb::cli {

namespace {

struct Workloads
{
    TrainingData reference;
    TrainingData target;
};

// --reference and --target, both required; reports what is wrong and sets the exit code.
std::optional<Workloads> readWorkloads(const QCommandLineParser &parser, Output &output,
                                       int *exitCode)
{
    if (!requireOptions(parser, {QStringLiteral("reference"), QStringLiteral("target")}, output,
                        exitCode)) {
        return std::nullopt;
    }
    const DeviceKinds kinds = deviceKinds(parser);
    Workloads out;
    for (const auto &[option, data, kind, field] :
         {std::tuple {QStringLiteral("reference"), &out.reference, kinds.reference,
                      InputField::Reference},
          std::tuple {QStringLiteral("target"), &out.target, kinds.target, InputField::Target}}) {
        Expected<TrainingData> read = readTrainingData(parser.value(option), kind, field);
        if (!read) {
            *exitCode = output.fail(read);
            return std::nullopt;
        }
        *data = std::move(read).value();
    }
    return out;
}

double peakMemoryMiB()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024.0;  // Linux reports KiB
}

}  // namespace

void BenchCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addPositionalArgument(
        QStringLiteral("what"),
        QStringLiteral("import FILE.csv|DIR: time importing a file (or raw run folders) into a "
                       "fresh database. accuracy: MAPE of NN and PT. "
                       "speed: training, transfer and prediction time."));
    addDeviceKindOptions(parser);
    parser.addOption({QStringLiteral("repeats"), QStringLiteral("Repeats (default 10)."),
                      QStringLiteral("N"), QStringLiteral("10")});
    parser.addOption({QStringLiteral("reference"),
                      QStringLiteral("Reference workload measurements (PowerTrain CSV)."),
                      QStringLiteral("REF.csv")});
    parser.addOption({QStringLiteral("target"),
                      QStringLiteral("Target workload measurements (PowerTrain CSV)."),
                      QStringLiteral("TGT.csv")});
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("reference-workload"),
                      QStringLiteral("accuracy: the reference, a workload of the database "
                                     "(instead of --reference)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("target-workload"),
                      QStringLiteral("accuracy: the target, a workload of the database (instead "
                                     "of --target)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("samples"),
                      QStringLiteral("Profiled target modes per repeat (default "
                                     "10,20,30,50,100)."),
                      QStringLiteral("N,N,..."), QStringLiteral("10,20,30,50,100")});
    parser.addOption({QStringLiteral("methods"), QStringLiteral("nn, pt or both (default)."),
                      QStringLiteral("LIST"), QStringLiteral("nn,pt")});
    parser.addOption({QStringLiteral("configs"),
                      QStringLiteral("default, baseline or both (default)."),
                      QStringLiteral("LIST"), QStringLiteral("default,baseline")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of the draws (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
}

int BenchCommand::run(const QCommandLineParser &parser, Output &output) const
{
    const QString what = parser.positionalArguments().value(0);
    if (what == QLatin1String("import"))
        return runImport(parser, output);
    if (what == QLatin1String("accuracy"))
        return runAccuracy(parser, output);
    if (what == QLatin1String("speed"))
        return runSpeed(parser, output);
    return output.badUsage(
        QStringLiteral("usage: ptwb bench import FILE.csv|DIR | accuracy | speed; see --help"));
}

int BenchCommand::runImport(const QCommandLineParser &parser, Output &output) const
{
    const QStringList args = parser.positionalArguments();
    if (args.size() != 2)
        return output.badUsage(
            QStringLiteral("usage: ptwb bench import FILE.csv|DIR [--repeats N]"));
    bool ok = false;
    const int repeats = parser.value(QStringLiteral("repeats")).toInt(&ok);
    if (!ok || repeats < 1)
        return output.badUsage(QStringLiteral("--repeats: expected a whole number >= 1"));

    QVector<double> seconds;
    qint64 rows = 0;
    for (int i = 0; i < repeats; ++i) {
        QTemporaryDir dir;
        Expected<std::unique_ptr<Store>> store =
            Store::open(dir.filePath(QStringLiteral("bench.sqlite")));
        if (!store)
            return output.fail(store);
        Importer importer(**store);
        const Expected<ImportOutcome> outcome =
            importer.run({args[1], deviceKinds(parser).target, QString(), QStringLiteral("bench")});
        if (!outcome)
            return output.fail(outcome);
        seconds.append(outcome->seconds);
        rows = outcome->rows;
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    if (output.json()) {
        output.object({{QStringLiteral("bench"), QStringLiteral("import")},
                       {QStringLiteral("file"), QFileInfo(args[1]).fileName()},
                       {QStringLiteral("rows"), rows},
                       {QStringLiteral("repeats"), repeats},
                       {QStringLiteral("seconds_median"), median},
                       {QStringLiteral("seconds_min"), seconds.front()},
                       {QStringLiteral("seconds_max"), seconds.back()}});
    } else {
        output.line(QStringLiteral("import of %1 rows from %2: median %3 s, min %4 s, max %5 s "
                                   "over %6 runs (parse, validate, one transaction, fsync)")
                        .arg(rows)
                        .arg(QFileInfo(args[1]).fileName())
                        .arg(median, 0, 'f', 4)
                        .arg(seconds.front(), 0, 'f', 4)
                        .arg(seconds.back(), 0, 'f', 4)
                        .arg(repeats));
    }
    return kExitOk;
}

int BenchCommand::runAccuracy(const QCommandLineParser &parser, Output &output) const
{
    AccuracyBenchOptions options;
    options.samples.clear();
    for (const QString &item : parser.value(QStringLiteral("samples")).split(QLatin1Char(','))) {
        bool ok = false;
        options.samples.append(item.trimmed().toInt(&ok));
        if (!ok)
            return output.badUsage(
                QStringLiteral("--samples: '%1' is not a whole number").arg(item));
    }
    bool ok = false;
    options.repeats = parser.value(QStringLiteral("repeats")).toInt(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--repeats: expected a whole number"));
    options.seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
    if (!ok)
        return output.badUsage(QStringLiteral("--seed: expected a whole number >= 0"));
    options.methods = parser.value(QStringLiteral("methods")).split(QLatin1Char(','));
    options.configs = parser.value(QStringLiteral("configs")).split(QLatin1Char(','));

    const auto header = [&output] {
        if (output.json())
            return;
        output.line(QStringLiteral("%1 %2 %3  %4  %5  %6")
                        .arg(QStringLiteral("method"), -12)
                        .arg(QStringLiteral("samples"), 7)
                        .arg(QStringLiteral("repeats"), 7)
                        .arg(QStringLiteral("time MAPE % median [q1 q3]"), -28)
                        .arg(QStringLiteral("power MAPE % median [q1 q3]"), -28)
                        .arg(QStringLiteral("s/model")));
    };
    const auto rowDone = [&output](const AccuracyRow &row) {
        if (output.json()) {
            output.object(workflows::accuracyRowJson(row));
            return;
        }
        const auto text = [](const Quartiles &q) {
            return QStringLiteral("%1 [%2 %3]")
                .arg(q.median, 6, 'f', 2)
                .arg(q.q1, 0, 'f', 2)
                .arg(q.q3, 0, 'f', 2);
        };
        output.line(QStringLiteral("%1 %2 %3  %4  %5  %6")
                        .arg(row.method, -12)
                        .arg(row.samples, 7)
                        .arg(row.repeats, 7)
                        .arg(text(row.timeMape), -28)
                        .arg(text(row.powerMape), -28)
                        .arg(row.seconds, 0, 'f', 3));
    };
    const auto log = [&output](const QString &line) { output.err() << line << Qt::endl; };

    if (parser.isSet(QStringLiteral("reference-workload")) ||
        parser.isSet(QStringLiteral("target-workload"))) {
        header();
        const Expected<QVector<AccuracyRow>> rows = workflows::runAccuracyStudy(
            {dbPath(parser), parser.value(QStringLiteral("reference-workload")), QString(),
             parser.value(QStringLiteral("target-workload")), QString(), options},
            {{}, {}, rowDone, log});
        if (rows)
            return kExitOk;
        // The stored workloads have options of their own (optionFor names the files').
        const QString option = rows.field() == InputField::Reference
            ? QStringLiteral("--reference-workload: ")
            : rows.field() == InputField::Workload ? QStringLiteral("--target-workload: ")
                                                   : QString();
        return option.isEmpty() ? output.fail(rows)
                                : output.fail(option + rows.error(), rows.errorKind());
    }

    int exitCode = kExitOk;
    const std::optional<Workloads> read = readWorkloads(parser, output, &exitCode);
    if (!read)
        return exitCode;
    const DeviceKinds kinds = deviceKinds(parser);
    AccuracyBench bench(read->reference, read->target, kinds.target, options);
    bench.setReferenceKind(kinds.reference);
    if (kinds.reference != kinds.target) {
        output.err() << QStringLiteral("across devices: reference measured on %1, target on %2")
                            .arg(kinds.reference, kinds.target)
                     << Qt::endl;
    }
    header();
    const Expected<QVector<AccuracyRow>> rows = bench.run(rowDone, log);
    if (!rows)
        return output.fail(rows);
    return kExitOk;
}

int BenchCommand::runSpeed(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    const std::optional<Workloads> read = readWorkloads(parser, output, &exitCode);
    if (!read)
        return exitCode;
    const DeviceKinds kinds = deviceKinds(parser);
    const QString &kind = kinds.target;
    const TrainingData &reference = read->reference;
    const TrainingData &target = read->target;
    bool ok = false;
    const int repeats = parser.value(QStringLiteral("repeats")).toInt(&ok);
    if (!ok || repeats < 1)
        return output.badUsage(QStringLiteral("--repeats: expected a whole number >= 1"));

    QElapsedTimer timer;
    timer.start();
    const Expected<PowerModel> model =
        PowerModel::train(kinds.reference, kinds.reference, QStringLiteral("reference"), reference,
                          QStringLiteral("reference"), QStringLiteral("default"), 0);
    if (!model)
        return output.fail(model);
    const double trainSeconds = timer.nsecsElapsed() / 1e9;

    QVector<int> order(target.size());
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(1);
    std::shuffle(order.begin(), order.end(), rng);
    const TrainingData fifty = target.subset(order.mid(0, 50));
    QVector<double> transferSeconds;
    std::optional<PowerModel> transferred;
    for (int i = 0; i < repeats; ++i) {
        timer.restart();
        Expected<PowerModel> pt =
            model->transfer(kind, kind, QStringLiteral("target"), fifty, i, true);
        if (!pt)
            return output.fail(pt);
        transferSeconds.append(timer.nsecsElapsed() / 1e9);
        transferred.emplace(std::move(pt).value());
    }

    const ModeSpace space(DeviceSpec::builtin(kind).value());
    QVector<double> predictSeconds;
    Expected<ModePredictions> predictions = Expected<ModePredictions>::failure(QString());
    for (int i = 0; i < repeats; ++i) {
        timer.restart();
        predictions = transferred->predict(space);
        predictSeconds.append(timer.nsecsElapsed() / 1e9);
        if (!predictions)
            return output.fail(predictions);
    }

    // The front of every predicted mode and 1,000 power-budget queries across its range.
    QVector<TradeoffPoint> points;
    for (int i = 0; i < predictions->timeMs.size(); ++i)
        points.append({i, predictions->powerW[i], predictions->timeMs[i]});
    const auto [lowest, highest] =
        std::minmax_element(predictions->powerW.cbegin(), predictions->powerW.cend());
    QVector<double> frontSeconds;
    int fitting = 0;
    for (int i = 0; i < repeats; ++i) {
        timer.restart();
        const ParetoFront front(points);
        for (int q = 0; q < 1000; ++q)
            fitting += front.fastestWithin(*lowest + (*highest - *lowest) * q / 999.0)->fits;
        frontSeconds.append(timer.nsecsElapsed() / 1e9);
    }
    const double frontMedian = Quartiles::of(frontSeconds).median;
    const double transferMedian = Quartiles::of(transferSeconds).median;
    const double predictMedian = Quartiles::of(predictSeconds).median;
    if (output.json()) {
        output.object({{QStringLiteral("bench"), QStringLiteral("speed")},
                       {QStringLiteral("reference_modes"), reference.size()},
                       {QStringLiteral("reference_train_seconds"), trainSeconds},
                       {QStringLiteral("transfer_modes"), fifty.size()},
                       {QStringLiteral("transfer_seconds_median"), transferMedian},
                       {QStringLiteral("predict_modes"), space.size()},
                       {QStringLiteral("predict_seconds_median"), predictMedian},
                       {QStringLiteral("front_and_1000_queries_seconds_median"), frontMedian},
                       {QStringLiteral("peak_memory_mib"), peakMemoryMiB()}});
    } else {
        output.line(QStringLiteral("reference training, %1 modes, time and power models: %2 s")
                        .arg(reference.size())
                        .arg(trainSeconds, 0, 'f', 2));
        output.line(QStringLiteral("transfer from %1 modes, both models: median %2 s over %3 runs")
                        .arg(fifty.size())
                        .arg(transferMedian, 0, 'f', 4)
                        .arg(repeats));
        output.line(QStringLiteral("prediction of all %1 %2 modes, both models: median %3 ms over "
                                   "%4 runs")
                        .arg(space.size())
                        .arg(kind)
                        .arg(predictMedian * 1000, 0, 'f', 1)
                        .arg(repeats));
        output.line(QStringLiteral("Pareto front of the %1 predicted modes and 1,000 budget "
                                   "queries: median %2 ms over %3 runs")
                        .arg(points.size())
                        .arg(frontMedian * 1000, 0, 'f', 2)
                        .arg(repeats));
        output.line(QStringLiteral("peak resident memory: %1 MiB").arg(peakMemoryMiB(), 0, 'f', 0));
    }
    return kExitOk;
}

}  // namespace ptwb::cli
