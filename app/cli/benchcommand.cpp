#include "benchcommand.h"

#include "store/importer.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <algorithm>

namespace ptwb::cli {

void BenchCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addPositionalArgument(QStringLiteral("import"),
                                 QStringLiteral("Time importing FILE.csv into a fresh database."));
    parser.addPositionalArgument(QStringLiteral("FILE.csv"),
                                 QStringLiteral("A file in the PowerTrain layout."));
    parser.addOption({QStringLiteral("device"), QStringLiteral("Device kind (default orin-agx)."),
                      QStringLiteral("KIND"), QStringLiteral("orin-agx")});
    parser.addOption({QStringLiteral("repeats"),
                      QStringLiteral("How many imports to time (default 10)."), QStringLiteral("N"),
                      QStringLiteral("10")});
}

int BenchCommand::run(const QCommandLineParser &parser, Output &output) const
{
    const QStringList args = parser.positionalArguments();
    if (args.size() != 2 || args[0] != QLatin1String("import"))
        return output.badUsage(QStringLiteral("usage: ptwb bench import FILE.csv [--repeats N]"));
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
            return output.fail(store.error(), store.errorKind());
        Importer importer(**store);
        const Expected<ImportOutcome> outcome = importer.run(
            {args[1], parser.value(QStringLiteral("device")), QString(), QStringLiteral("bench")});
        if (!outcome)
            return output.fail(outcome.error(), outcome.errorKind());
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

}  // namespace ptwb::cli
