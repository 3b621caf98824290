// How long `ptwb import` takes on a tree of raw run folders, as a user runs it: a fresh database
// each run, the whole process timed (docs/benchmarks.md).
//
//   bench_rawimport --ptwb build/app/ptwb [--kind orin-nano] [--folders 180] [--runs 5]

#include "clirunner.h"
#include "rawruntree.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption(
        {QStringLiteral("ptwb"), QStringLiteral("The ptwb to time."), QStringLiteral("PATH")});
    parser.addOption({QStringLiteral("kind"), QStringLiteral("Device kind (default orin-nano)."),
                      QStringLiteral("KIND"), QStringLiteral("orin-nano")});
    parser.addOption({QStringLiteral("folders"), QStringLiteral("Run folders (default 180)."),
                      QStringLiteral("N"), QStringLiteral("180")});
    parser.addOption({QStringLiteral("runs"), QStringLiteral("Timed imports (default 5)."),
                      QStringLiteral("N"), QStringLiteral("5")});
    parser.process(app);
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QString ptwb = parser.value(QStringLiteral("ptwb"));
    const QString kind = parser.value(QStringLiteral("kind"));
    const int folders = parser.value(QStringLiteral("folders")).toInt();
    const int runs = parser.value(QStringLiteral("runs")).toInt();
    if (ptwb.isEmpty() || folders < 1 || runs < 1) {
        err << "usage: bench_rawimport --ptwb PATH [--kind KIND] [--folders N] [--runs N]\n";
        return 2;
    }

    QTemporaryDir dir;
    const QString tree = dir.filePath(QStringLiteral("runs"));
    ptwb::test::writeRawRunTree(tree, kind, folders);
    QVector<double> seconds;
    int modes = 0;
    for (int run = 0; run < runs; ++run) {
        const QString db = dir.filePath(QStringLiteral("bench-%1.sqlite").arg(run));
        QElapsedTimer timer;
        timer.start();
        const CliResult result = runProgram(
            ptwb,
            {QStringLiteral("import"), tree, QStringLiteral("--db"), db, QStringLiteral("--device"),
             kind, QStringLiteral("--workload"), QStringLiteral("bench"), QStringLiteral("--json")},
            600000);
        seconds.append(timer.nsecsElapsed() / 1e9);
        if (result.exitCode != 0) {
            err << "ptwb import failed (exit " << result.exitCode << "): " << result.err << '\n';
            return 1;
        }
        modes = QJsonDocument::fromJson(result.out.toUtf8())
                    .object()
                    .value(QStringLiteral("distinct_modes"))
                    .toInt();
    }
    std::sort(seconds.begin(), seconds.end());
    out << QStringLiteral("ptwb import of %1 raw run folders (%2): %3 modes stored; whole command "
                          "median %4 s, min %5 s, max %6 s over %7 runs, fresh database each\n")
               .arg(folders)
               .arg(kind)
               .arg(modes)
               .arg(seconds[seconds.size() / 2], 0, 'f', 3)
               .arg(seconds.front(), 0, 'f', 3)
               .arg(seconds.back(), 0, 'f', 3)
               .arg(runs);
    return modes == folders ? 0 : 1;
}
