#include "clirunner.h"
#include "predict/synthetic.h"
#include "predict/syntheticstore.h"
#include "rawruntree.h"
#include "shareddata.h"
#include "store/measurementcsv.h"
#include "testfiles.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

namespace {

const QByteArray kHeader = "cores,cpu,gpu,mem,observed_time,observed_power\n";
const QByteArray kGood = kHeader +
    "12,2201600,1300500000,3199000000,100.25,40.5\n"
    "4,1036800,318750000,2133000000,400,15\n";

QStringList commands()
{
    return {QStringLiteral("import"),
            QStringLiteral("export"),
            QStringLiteral("workloads"),
            QStringLiteral("modes"),
            QStringLiteral("bench"),
            QStringLiteral("train"),
            QStringLiteral("transfer"),
            QStringLiteral("predict"),
            QStringLiteral("models"),
            QStringLiteral("recommend"),
            QStringLiteral("pareto"),
            QStringLiteral("evaluate"),
            QStringLiteral("evaluate-concurrent"),
            QStringLiteral("sweep"),
            QStringLiteral("apply"),
            QStringLiteral("demo")};
}

}  // namespace

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void versionAndHelp()
    {
        const CliResult version = runCli({QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        const QStringList lines = version.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), QStringLiteral("ptwb " PTWB_VERSION));
        // Run from the build tree, ptwb uses the engine built beside it and the checkout's
        // scripts (an installed copy never does: tests/packaging/test_package.py).
        QVERIFY2(lines.value(1).startsWith(QStringLiteral("prediction engine: /")) &&
                     lines.value(1).endsWith(QStringLiteral("/libptwb_predict_engine.so")),
                 qPrintable(version.out));
        QVERIFY2(lines.value(2).startsWith(QStringLiteral("device scripts: /")) &&
                     QFileInfo::exists(lines.value(2).section(QStringLiteral(": "), 1) +
                                       QStringLiteral("/agent/ptwb_agent.py")),
                 qPrintable(version.out));
        const CliResult help = runCli({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        for (const QString &command : commands())
            QVERIFY2(help.out.contains(QStringLiteral("  ") + command), qPrintable(help.out));
        const CliResult helpSweep = runCli({QStringLiteral("help"), QStringLiteral("sweep")});
        QCOMPARE(helpSweep.exitCode, 0);
        QVERIFY2(helpSweep.out.startsWith(QStringLiteral("Usage: ptwb sweep [options]")),
                 qPrintable(helpSweep.out));
        for (const QString &command : commands()) {
            const CliResult commandHelp = runCli({command, QStringLiteral("--help")});
            QCOMPARE(commandHelp.exitCode, 0);
            QVERIFY2(commandHelp.out.contains(QStringLiteral("Usage: ptwb ") + command) &&
                         commandHelp.out.contains(QStringLiteral("--json")),
                     qPrintable(command + QStringLiteral(": ") + commandHelp.out));
        }
        const CliResult none = runCli({});
        QCOMPARE(none.exitCode, 2);
        QVERIFY(none.err.contains(QStringLiteral("Usage: ptwb COMMAND")));
        const CliResult unknown = runCli({QStringLiteral("frobnicate")});
        QCOMPARE(unknown.exitCode, 2);
        QCOMPARE(unknown.err.trimmed(),
                 QStringLiteral("ptwb: unknown command 'frobnicate'; run "
                                "'ptwb --help' for the list"));
    }

    void everyCommandHasHelpAndJson_data()
    {
        QTest::addColumn<QString>("command");
        for (const QString &command : commands())
            QTest::newRow(qPrintable(command)) << command;
    }

    void everyCommandHasHelpAndJson()
    {
        QFETCH(QString, command);
        const CliResult help = runCli({command, QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.startsWith(QStringLiteral("Usage: ptwb %1 [options]").arg(command)),
                 qPrintable(help.out));
        QVERIFY(help.out.contains(QStringLiteral("--json")));
        const CliResult badOption = runCli({command, QStringLiteral("--no-such-option")});
        QCOMPARE(badOption.exitCode, 2);
        QVERIFY2(badOption.err.contains(QStringLiteral("Unknown option 'no-such-option'")),
                 qPrintable(badOption.err));
    }

    void modes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("output");
        QTest::newRow("orin count") << QStringList {"modes", "--device", "orin-agx"} << "18096";
        QTest::newRow("xavier count") << QStringList {"modes", "--device", "xavier-agx"} << "29232";
        QTest::newRow("nano count") << QStringList {"modes", "--device", "orin-nano"} << "1800";
        QTest::newRow("grid count")
            << QStringList {"modes", "--device", "orin-agx", "--grid", "cores=even;cpu=every:2:2"}
            << "4368";
        QTest::newRow("json count") << QStringList {"modes", "--device", "orin-nano", "--json"}
                                    << R"({"device":"orin-nano","grid":"","modes":1800})";
    }

    void modes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, output);
        const CliResult result = runCli(arguments);
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(result.out.trimmed(), output);
    }

    void modesListAndPresets()
    {
        const CliResult list = runCli({QStringLiteral("modes"), QStringLiteral("--device"),
                                       QStringLiteral("orin-nano"), QStringLiteral("--list"),
                                       QStringLiteral("--format"), QStringLiteral("short")});
        QCOMPARE(list.exitCode, 0);
        const QStringList lines = list.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1800);
        QCOMPARE(lines.first(), QStringLiteral("1c/0.12C/0.31G/0.20M"));
        QCOMPARE(lines.last(), QStringLiteral("6c/1.51C/0.62G/2.13M"));
        const CliResult presets =
            runCli({QStringLiteral("modes"), QStringLiteral("--device"), QStringLiteral("orin-agx"),
                    QStringLiteral("--grid"), QStringLiteral("cores=even;cpu=every:2:2"),
                    QStringLiteral("--presets"), QStringLiteral("--json")});
        QCOMPARE(presets.exitCode, 0);
        QVERIFY2(presets.out.contains(
                     R"({"id":2,"mode":"8/1651200/522750000/3199000000","preset":"MODE_30W"})"),
                 qPrintable(presets.out));
        const CliResult bad =
            runCli({QStringLiteral("modes"), QStringLiteral("--device"), QStringLiteral("tx2")});
        QCOMPARE(bad.exitCode, 2);
        QCOMPARE(bad.err.trimmed(),
                 QStringLiteral("unknown device 'tx2'; expected one of: agx-thor, orin-agx, "
                                "orin-nano, orin-nano-super, orin-nx, xavier-agx, xavier-nx"));
    }

    void badInputIsRefusedAndStoreUntouched_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty file") << QByteArray()
                                    << "bad.csv:1: the file is empty; expected the header line "
                                       "'cores,cpu,gpu,mem,observed_time,observed_power'";
        QTest::newRow("header only")
            << kHeader
            << "bad.csv:2: no measurements after the header; expected rows of "
               "cores,cpu,gpu,mem,observed_time,observed_power";
        QTest::newRow("missing column")
            << QByteArray("cores,cpu,gpu,observed_time,observed_power\n")
            << "bad.csv:1: column 'mem': missing from the header; expected "
               "cores,cpu,gpu,mem,observed_time,observed_power";
        QTest::newRow("extra column")
            << QByteArray("cores,cpu,gpu,mem,observed_time,observed_power,notes\n")
            << "bad.csv:1: column 'notes': not a column of the PowerTrain layout; expected "
               "cores,cpu,gpu,mem,observed_time,observed_power (training) or "
               "cores,cpu,gpu,mem,observed_time,bs,observed_power (inference), optionally with "
               "batch_size (training) and peak_power";
        QTest::newRow("non-numeric") << kGood + "12,2201600,13e,3199000000,5,6\n"
                                     << "bad.csv:4: column 'gpu': '13e' is not a frequency in Hz";
        QTest::newRow("negative time")
            << kGood + "12,2201600,1300500000,3199000000,-5,6\n"
            << "bad.csv:4: column 'observed_time': '-5' must be a positive time in milliseconds";
        QTest::newRow("zero power")
            << kGood + "12,2201600,1300500000,3199000000,5,0\n"
            << "bad.csv:4: column 'observed_power': '0' must be a positive power in watts";
        QTest::newRow("frequency not on device")
            << kGood + "12,2201600,1300500000,3200000000,5,6\n"
            << "bad.csv:4: column 'mem': 3200000000 Hz is not a memory frequency of orin-agx; "
               "nearest allowed: 3199000000";
        QTest::newRow("cores out of range")
            << kGood + "16,2201600,1300500000,3199000000,5,6\n"
            << "bad.csv:4: column 'cores': 16 is out of range; orin-agx has 1..12 cores";
        QTest::newRow("truncated last line")
            << kGood + "12,2201600,1300500000,3199"
            << "bad.csv:4: the last line is cut short (4 of 6 fields, no final newline); the "
               "file looks truncated";
    }

    void badInputIsRefusedAndStoreUntouched()
    {
        QFETCH(QByteArray, data);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        const QString good = writeTestFile(dir, QStringLiteral("good.csv"), kGood);
        const CliResult first = runCli({QStringLiteral("import"), good, QStringLiteral("--db"), db,
                                        QStringLiteral("--device"), QStringLiteral("orin-agx"),
                                        QStringLiteral("--workload"), QStringLiteral("w")});
        QCOMPARE(first.exitCode, 0);
        const QByteArray before = readTestFile(db);
        QVERIFY(!before.isEmpty());

        const QString bad = writeTestFile(dir, QStringLiteral("bad.csv"), data);
        const CliResult result = runCli({QStringLiteral("import"), bad, QStringLiteral("--db"), db,
                                         QStringLiteral("--device"), QStringLiteral("orin-agx"),
                                         QStringLiteral("--workload"), QStringLiteral("w")});
        QCOMPARE(result.exitCode, 2);
        QCOMPARE(result.err.trimmed(), message);
        QVERIFY(result.out.isEmpty());
        // Byte for byte: the failed import wrote nothing.
        QCOMPARE(readTestFile(db), before);
        const CliResult list = runCli(
            {QStringLiteral("workloads"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(list.out.trimmed(),
                 QStringLiteral(R"({"device":"orin-agx","distinct_modes":2,"kind":"orin-agx",)"
                                R"("measurements":2,"training_batches":[16],"workload":"w"})"));

        // With --json the error is also a JSON object on stdout.
        const CliResult json =
            runCli({QStringLiteral("import"), bad, QStringLiteral("--db"), db,
                    QStringLiteral("--device"), QStringLiteral("orin-agx"),
                    QStringLiteral("--workload"), QStringLiteral("w"), QStringLiteral("--json")});
        QCOMPARE(json.exitCode, 2);
        const QJsonObject object = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(object.value(QStringLiteral("error")).toString(), message);
        QCOMPARE(object.value(QStringLiteral("exit")).toInt(), 2);
    }

    void refusesForeignAndNewerDatabases()
    {
        QTemporaryDir dir;
        const QString notes = writeTestFile(dir, QStringLiteral("notes.db"), "just text\n");
        const QString csv = writeTestFile(dir, QStringLiteral("good.csv"), kGood);
        const CliResult result =
            runCli({QStringLiteral("import"), csv, QStringLiteral("--db"), notes,
                    QStringLiteral("--device"), QStringLiteral("orin-agx"),
                    QStringLiteral("--workload"), QStringLiteral("w")});
        QCOMPARE(result.exitCode, 2);
        QCOMPARE(result.err.trimmed(),
                 notes +
                     QStringLiteral(": not a PowerTrain Workbench "
                                    "database (not an SQLite file); it "
                                    "was left untouched"));
        QCOMPARE(readTestFile(notes), QByteArray("just text\n"));
    }

    // Errors from core and the workflows name the input field; ptwb names its option for it.
    void aFieldErrorNamesTheCommandsOption()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("two.sqlite"));
        const QString csv = writeTestFile(dir, QStringLiteral("good.csv"), kGood);
        for (const QString &device : {QStringLiteral("orin-a"), QStringLiteral("orin-b")}) {
            QCOMPARE(runCli({QStringLiteral("import"), csv, QStringLiteral("--db"), db,
                             QStringLiteral("--device"), device, QStringLiteral("--kind"),
                             QStringLiteral("orin-agx"), QStringLiteral("--workload"),
                             QStringLiteral("w")})
                         .exitCode,
                     0);
        }
        const CliResult train = runCli({QStringLiteral("train"), QStringLiteral("--db"), db,
                                        QStringLiteral("--workload"), QStringLiteral("w")});
        QCOMPARE(train.exitCode, 2);
        QCOMPARE(
            train.err.trimmed(),
            QStringLiteral("--device: workload 'w' was measured on orin-a, orin-b; choose one"));
        // transfer loads its target the same way.
        const CliResult transfer = runCli({QStringLiteral("transfer"), QStringLiteral("--db"), db,
                                           QStringLiteral("--from"), QStringLiteral("w"),
                                           QStringLiteral("--to"), QStringLiteral("w")});
        QCOMPARE(transfer.exitCode, 2);
        QVERIFY2(transfer.err.startsWith(QStringLiteral("--device: ")), qPrintable(transfer.err));
    }

    void importExportImportRoundTrip()
    {
        const QString source = sharedDataFile(QStringLiteral("resnet18_imagenet_train.csv"));
        PTWB_REQUIRE_SHARED_DATA(source);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        const QString exported = dir.filePath(QStringLiteral("out.csv"));
        const CliResult imported = runCli({QStringLiteral("import"), source, QStringLiteral("--db"),
                                           db, QStringLiteral("--device"),
                                           QStringLiteral("orin-agx"), QStringLiteral("--workload"),
                                           QStringLiteral("resnet18"), QStringLiteral("--json")});
        QCOMPARE(imported.exitCode, 0);
        const QJsonObject object = QJsonDocument::fromJson(imported.out.toUtf8()).object();
        QCOMPARE(object.value(QStringLiteral("rows")).toInt(), 4368);
        QCOMPARE(object.value(QStringLiteral("distinct_modes")).toInt(), 4368);
        QCOMPARE(object.value(QStringLiteral("already_imported")).toBool(), false);

        const CliResult out = runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                                      QStringLiteral("--workload"), QStringLiteral("resnet18"),
                                      QStringLiteral("--out"), exported});
        QCOMPARE(out.exitCode, 0);
        QCOMPARE(readTestFile(exported), readTestFile(source));

        const CliResult again = runCli({QStringLiteral("import"), exported, QStringLiteral("--db"),
                                        db, QStringLiteral("--device"), QStringLiteral("orin-agx"),
                                        QStringLiteral("--workload"), QStringLiteral("resnet18b")});
        QCOMPARE(again.exitCode, 0);
        const CliResult second = runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                                         QStringLiteral("--workload"), QStringLiteral("resnet18b"),
                                         QStringLiteral("--out"), QStringLiteral("-")});
        QCOMPARE(second.exitCode, 0);
        QCOMPARE(second.out.toUtf8(), readTestFile(source));

        // Importing the same file again into the same workload changes nothing.
        const CliResult repeat = runCli({QStringLiteral("import"), source, QStringLiteral("--db"),
                                         db, QStringLiteral("--device"), QStringLiteral("orin-agx"),
                                         QStringLiteral("--workload"), QStringLiteral("resnet18")});
        QCOMPARE(repeat.exitCode, 0);
        QVERIFY2(repeat.out.contains(QStringLiteral("was already imported")),
                 qPrintable(repeat.out));
    }

    // The public inference layout: imported with its batch sizes, exported with its bs column,
    // and refused by every command that needs training measurements.
    void inferenceFileImportsExportsAndIsRefusedForTraining()
    {
        const QString source = sharedDataFile(QStringLiteral("resnet18_infer.csv"));
        PTWB_REQUIRE_SHARED_DATA(source);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        const QString exported = dir.filePath(QStringLiteral("out.csv"));
        const QStringList target {QStringLiteral("--db"), db, QStringLiteral("--device"),
                                  QStringLiteral("orin-agx"), QStringLiteral("--workload")};
        const CliResult imported =
            runCli(QStringList {QStringLiteral("import"), source} + target +
                   QStringList {QStringLiteral("resnet18_infer"), QStringLiteral("--json")});
        QCOMPARE(imported.exitCode, 0);
        const QJsonObject object = QJsonDocument::fromJson(imported.out.toUtf8()).object();
        QCOMPARE(object.value(QStringLiteral("rows")).toInt(), 2205);
        QCOMPARE(object.value(QStringLiteral("distinct_modes")).toInt(), 441);
        QCOMPARE(object.value(QStringLiteral("repeated_modes")).toInt(), 0);
        QCOMPARE(object.value(QStringLiteral("inference_batches")).toArray(),
                 (QJsonArray {1, 4, 16, 32, 64}));
        const CliResult workloads = runCli(
            {QStringLiteral("workloads"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(workloads.out.trimmed(),
                 QStringLiteral(R"({"device":"orin-agx","distinct_modes":441,)"
                                R"("inference_batches":[1,4,16,32,64],"kind":"orin-agx",)"
                                R"("measurements":2205,"workload":"resnet18_infer"})"));

        const CliResult out = runCli(
            {QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--workload"),
             QStringLiteral("resnet18_infer"), QStringLiteral("--out"), exported});
        QCOMPARE(out.exitCode, 0);
        const QByteArray csv = readTestFile(exported);
        QVERIFY(csv.startsWith("cores,cpu,gpu,mem,observed_time,bs,observed_power\n"
                               "4,422400,114750000,665600000,77.86630249023438,1,13.046\n"));
        QCOMPARE(csv.count('\n'), 2206);
        // Imported again and exported again: the same bytes.
        QCOMPARE(runCli(QStringList {QStringLiteral("import"), exported} + target +
                        QStringList {QStringLiteral("copy")})
                     .exitCode,
                 0);
        const CliResult second = runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                                         QStringLiteral("--workload"), QStringLiteral("copy"),
                                         QStringLiteral("--out"), QStringLiteral("-")});
        QCOMPARE(second.out.toUtf8(), csv);

        const QString holds =
            QStringLiteral("holds inference measurements (inference minibatch sizes 1, 4, 16, 32, "
                           "64), not training ones; training, transfer, evaluation and mode "
                           "selection need a workload of training measurements");
        const QString stored = QStringLiteral("workload 'resnet18_infer' on orin-agx ") + holds;
        const CliResult train =
            runCli({QStringLiteral("train"), QStringLiteral("--db"), db,
                    QStringLiteral("--workload"), QStringLiteral("resnet18_infer")});
        QCOMPARE(train.exitCode, 2);
        QCOMPARE(train.err.trimmed(), QStringLiteral("--workload: ") + stored);
        const CliResult transfer = runCli(
            {QStringLiteral("transfer"), QStringLiteral("--db"), db, QStringLiteral("--from"),
             QStringLiteral("resnet18"), QStringLiteral("--to"), QStringLiteral("resnet18_infer")});
        QCOMPARE(transfer.exitCode, 2);
        QCOMPARE(transfer.err.trimmed(), QStringLiteral("--to: ") + stored);
        const CliResult recommend =
            runCli({QStringLiteral("recommend"), QStringLiteral("--db"), db,
                    QStringLiteral("--workload"), QStringLiteral("resnet18_infer"),
                    QStringLiteral("--power-budget"), QStringLiteral("30")});
        QCOMPARE(recommend.exitCode, 2);
        QCOMPARE(recommend.err.trimmed(), QStringLiteral("--workload: ") + stored);
        const CliResult evaluate =
            runCli({QStringLiteral("evaluate"), QStringLiteral("--target"), source,
                    QStringLiteral("--strategies"), QStringLiteral("maxn")});
        QCOMPARE(evaluate.exitCode, 2);
        QCOMPARE(evaluate.err.trimmed(), QStringLiteral("--target: resnet18_infer.csv ") + holds);
    }

    // A campaign's tree of raw run folders on an Orin Nano, one of them broken: the good 180
    // are imported in one go, the broken one is named, and the exit code says not everything.
    void importsATreeOfRawRunFolders()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        const QString tree = dir.filePath(QStringLiteral("resnet18"));
        ptwb::test::writeRawRunTree(tree, QStringLiteral("orin-nano"), 180);
        ptwb::test::RawRunSpec broken;
        broken.mode = {6, 1510400, 624750000, 2133000000};
        broken.minibatches = 5;  // training died early; the sampler kept going
        broken.samplesUntilS = 30;
        ptwb::test::writeRawRun(tree, broken);
        const QStringList import {QStringLiteral("import"),     tree,
                                  QStringLiteral("--db"),       db,
                                  QStringLiteral("--device"),   QStringLiteral("orin-nano"),
                                  QStringLiteral("--workload"), QStringLiteral("resnet18"),
                                  QStringLiteral("--json")};

        const CliResult dry = runCli(import + QStringList {QStringLiteral("--dry-run")});
        QCOMPARE(dry.exitCode, 2);
        QCOMPARE(QJsonDocument::fromJson(dry.out.toUtf8()).object().value("rows").toInt(), 180);
        const CliResult none = runCli(
            {QStringLiteral("workloads"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(!none.out.contains(QStringLiteral("resnet18")), qPrintable(none.out));

        const CliResult imported = runCli(import);
        QCOMPARE(imported.exitCode, 2);
        const QJsonObject object = QJsonDocument::fromJson(imported.out.toUtf8()).object();
        QCOMPARE(object.value(QStringLiteral("rows")).toInt(), 180);
        QCOMPARE(object.value(QStringLiteral("distinct_modes")).toInt(), 180);
        const QJsonArray folders = object.value(QStringLiteral("folders")).toArray();
        QCOMPARE(folders.size(), 181);
        int rejected = 0;
        for (const QJsonValue &folder : folders) {
            if (folder[QStringLiteral("status")].toString() == QLatin1String("rejected")) {
                ++rejected;
                QCOMPARE(folder[QStringLiteral("folder")].toString(),
                         QStringLiteral("pm_6_1510400_624750000_2133000000"));
                const QString error = folder[QStringLiteral("error")].toString();
                QVERIFY2(error.contains(QStringLiteral("clean minibatches")), qPrintable(error));
            }
        }
        QCOMPARE(rejected, 1);

        const CliResult workloads = runCli(
            {QStringLiteral("workloads"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(workloads.exitCode, 0);
        QVERIFY2(workloads.out.contains(QStringLiteral("\"distinct_modes\":180")),
                 qPrintable(workloads.out));

        // Again: nothing new, the broken folder still reported.
        const CliResult again = runCli(import);
        QCOMPARE(again.exitCode, 2);
        QCOMPARE(QJsonDocument::fromJson(again.out.toUtf8()).object().value("rows").toInt(), 0);
    }

    void trainTransferPredict()
    {
        const QString resnet = sharedDataFile(QStringLiteral("resnet18_imagenet_train.csv"));
        const QString mobilenet = sharedDataFile(QStringLiteral("mobilenetv3_gld23k_train.csv"));
        PTWB_REQUIRE_SHARED_DATA(resnet);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        // 50 profiled modes of the new workload: every 87th line of the published file.
        const QList<QByteArray> lines = readTestFile(mobilenet).split('\n');
        QByteArray fifty = lines.first() + '\n';
        for (int i = 1; i < lines.size() && fifty.count('\n') <= 50; i += 87)
            fifty += lines[i] + '\n';
        const QString profiled = writeTestFile(dir, QStringLiteral("fifty.csv"), fifty);
        const auto import = [&db](const QString &file, const QString &workload) {
            return runCli({QStringLiteral("import"), file, QStringLiteral("--db"), db,
                           QStringLiteral("--device"), QStringLiteral("orin-agx"),
                           QStringLiteral("--workload"), workload})
                .exitCode;
        };
        QCOMPARE(import(resnet, QStringLiteral("resnet18")), 0);
        QCOMPARE(import(profiled, QStringLiteral("mobilenetv3")), 0);

        const CliResult tooEarly = runCli({QStringLiteral("transfer"), QStringLiteral("--db"), db,
                                           QStringLiteral("--from"), QStringLiteral("resnet18"),
                                           QStringLiteral("--to"), QStringLiteral("mobilenetv3")});
        QCOMPARE(tooEarly.exitCode, 2);
        QCOMPARE(tooEarly.err.trimmed(),
                 db +
                     QStringLiteral(": no reference model of workload 'resnet18' for orin-agx; "
                                    "train one with 'ptwb train'"));

        const CliResult train = runCli({QStringLiteral("train"), QStringLiteral("--db"), db,
                                        QStringLiteral("--workload"), QStringLiteral("resnet18"),
                                        QStringLiteral("--json")},
                                       300000);
        QCOMPARE(train.exitCode, 0);
        const QJsonObject trained = QJsonDocument::fromJson(train.out.toUtf8()).object();
        QCOMPARE(trained.value(QStringLiteral("method")).toString(), QStringLiteral("reference"));
        QCOMPARE(trained.value(QStringLiteral("modes")).toInt(), 4368);
        QVERIFY(trained.value(QStringLiteral("time_mape_train")).toDouble() < 8);

        const CliResult transfer =
            runCli({QStringLiteral("transfer"), QStringLiteral("--db"), db,
                    QStringLiteral("--from"), QStringLiteral("resnet18"), QStringLiteral("--to"),
                    QStringLiteral("mobilenetv3"), QStringLiteral("--json")});
        QCOMPARE(transfer.exitCode, 0);
        const QJsonObject pt = QJsonDocument::fromJson(transfer.out.toUtf8()).object();
        QCOMPARE(pt.value(QStringLiteral("method")).toString(), QStringLiteral("pt"));
        QCOMPARE(pt.value(QStringLiteral("modes")).toInt(), 50);
        QCOMPARE(pt.value(QStringLiteral("reference_model_id")).toInt(),
                 trained.value(QStringLiteral("model_id")).toInt());

        const QString predictions = dir.filePath(QStringLiteral("predicted.csv"));
        const CliResult predict = runCli(
            {QStringLiteral("predict"), QStringLiteral("--db"), db, QStringLiteral("--workload"),
             QStringLiteral("mobilenetv3"), QStringLiteral("--out"), predictions});
        QCOMPARE(predict.exitCode, 0);
        const QList<QByteArray> rows = readTestFile(predictions).trimmed().split('\n');
        QCOMPARE(rows.size(), 18097);
        QCOMPARE(rows.first(),
                 QByteArray("cores,cpu,gpu,mem,predicted_time,predicted_power,"
                            "time_std,power_std"));
        // MAXN of MobileNet v3 was measured at 96.2 ms; 50 profiled modes put it within 20 %.
        const QList<QByteArray> maxn = rows.last().split(',');
        QCOMPARE(maxn.mid(0, 4).join(','), QByteArray("12,2201600,1300500000,3199000000"));
        const double time = maxn[4].toDouble();
        QVERIFY2(time > 80 && time < 115, maxn[4].constData());

        const CliResult models = runCli(
            {QStringLiteral("models"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(models.exitCode, 0);
        QCOMPARE(models.out.trimmed().split(QLatin1Char('\n')).size(), 2);

        const CliResult wrongDevice = runCli(
            {QStringLiteral("predict"), QStringLiteral("--db"), db, QStringLiteral("--model"),
             QString::number(pt.value(QStringLiteral("model_id")).toInt()),
             QStringLiteral("--device"), QStringLiteral("xavier-agx")});
        QCOMPARE(wrongDevice.exitCode, 2);
        QVERIFY2(wrongDevice.err.contains(QStringLiteral("predicts for orin-agx, not for "
                                                         "xavier-agx")),
                 qPrintable(wrongDevice.err));
    }

    void recommendAndParetoFromMeasurements()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        // MAXN 100 ms at 40 W; a 30 W mode at 150 ms; a 15 W mode at 400 ms; a dominated one.
        const QString csv = writeTestFile(dir, QStringLiteral("m.csv"),
                                          "cores,cpu,gpu,mem,observed_time,observed_power\n"
                                          "12,2201600,1300500000,3199000000,100,40\n"
                                          "8,1651200,522750000,3199000000,150,30\n"
                                          "4,1036800,318750000,2133000000,400,15\n"
                                          "4,1036800,318750000,665600000,500,16\n");
        QCOMPARE(runCli({QStringLiteral("import"), csv, QStringLiteral("--db"), db,
                         QStringLiteral("--device"), QStringLiteral("orin-agx"),
                         QStringLiteral("--workload"), QStringLiteral("w")})
                     .exitCode,
                 0);
        const CliResult within = runCli({QStringLiteral("recommend"), QStringLiteral("--db"), db,
                                         QStringLiteral("--workload"), QStringLiteral("w"),
                                         QStringLiteral("--power-budget"), QStringLiteral("35"),
                                         QStringLiteral("--json")});
        QCOMPARE(within.exitCode, 0);
        const QJsonObject pick = QJsonDocument::fromJson(within.out.toUtf8()).object();
        QCOMPARE(pick.value(QStringLiteral("fits")).toBool(), true);
        QCOMPARE(pick.value(QStringLiteral("mode")).toString(),
                 QStringLiteral("8/1651200/522750000/3199000000"));
        QCOMPARE(pick.value(QStringLiteral("source")).toString(), QStringLiteral("observed"));
        QCOMPARE(pick.value(QStringLiteral("time_vs_maxn_percent")).toDouble(), 50.0);
        QCOMPARE(pick.value(QStringLiteral("power_vs_maxn_percent")).toDouble(), -25.0);

        const CliResult time = runCli({QStringLiteral("recommend"), QStringLiteral("--db"), db,
                                       QStringLiteral("--workload"), QStringLiteral("w"),
                                       QStringLiteral("--time-budget"), QStringLiteral("450")});
        QCOMPARE(time.exitCode, 0);
        QVERIFY2(time.out.startsWith(QStringLiteral("4/1036800/318750000/2133000000")),
                 qPrintable(time.out));

        const CliResult none = runCli({QStringLiteral("recommend"), QStringLiteral("--db"), db,
                                       QStringLiteral("--workload"), QStringLiteral("w"),
                                       QStringLiteral("--power-budget"), QStringLiteral("10")});
        QCOMPARE(none.exitCode, 0);
        QVERIFY2(none.out.startsWith(QStringLiteral("No mode fits a 10 W budget. The closest is "
                                                    "4/1036800/318750000/2133000000")),
                 qPrintable(none.out));

        const CliResult both = runCli({QStringLiteral("recommend"), QStringLiteral("--db"), db,
                                       QStringLiteral("--workload"), QStringLiteral("w"),
                                       QStringLiteral("--power-budget"), QStringLiteral("10"),
                                       QStringLiteral("--time-budget"), QStringLiteral("10")});
        QCOMPARE(both.exitCode, 2);

        const CliResult pareto = runCli({QStringLiteral("pareto"), QStringLiteral("--db"), db,
                                         QStringLiteral("--workload"), QStringLiteral("w")});
        QCOMPARE(pareto.exitCode, 0);
        QCOMPARE(pareto.out,
                 QStringLiteral("cores,cpu,gpu,mem,time_ms,power_w,energy_j,source\n"
                                "4,1036800,318750000,2133000000,400.0,15.0,6.0,observed\n"
                                "8,1651200,522750000,3199000000,150.0,30.0,4.5,observed\n"
                                "12,2201600,1300500000,3199000000,100.0,40.0,4.0,observed\n"));
    }

    // bench accuracy on two workloads of a database (the Models view's study) prints the rows
    // with the keys of the file form; an unknown workload names its option.
    void benchAccuracyOnStoredWorkloads()
    {
        QTemporaryDir dir;
        const QString db = makeSyntheticStore(dir, 60);
        QVERIFY(!db.isEmpty());
        const QStringList bench {QStringLiteral("bench"),
                                 QStringLiteral("accuracy"),
                                 QStringLiteral("--db"),
                                 db,
                                 QStringLiteral("--reference-workload"),
                                 QStringLiteral("resnet"),
                                 QStringLiteral("--samples"),
                                 QStringLiteral("10"),
                                 QStringLiteral("--repeats"),
                                 QStringLiteral("1"),
                                 QStringLiteral("--methods"),
                                 QStringLiteral("nn"),
                                 QStringLiteral("--configs"),
                                 QStringLiteral("default"),
                                 QStringLiteral("--json")};
        const CliResult stored = runCli(
            bench + QStringList {QStringLiteral("--target-workload"), QStringLiteral("mobilenet")});
        QCOMPARE(stored.exitCode, 0);
        const QStringList lines = stored.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1);
        const QJsonObject row = QJsonDocument::fromJson(lines.first().toUtf8()).object();
        QCOMPARE(row.keys(),
                 (QStringList {"config", "method", "power_mape", "repeats", "samples", "seconds",
                               "time_mape"}));
        QCOMPARE(row.value("method").toString(), QStringLiteral("nn"));
        QCOMPARE(row.value("samples").toInt(), 10);

        const CliResult unknown = runCli(
            bench + QStringList {QStringLiteral("--target-workload"), QStringLiteral("nothing")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.startsWith(QStringLiteral("--target-workload: ")),
                 qPrintable(unknown.err));
    }

    // The published cross-device experiments from files: an AGX Orin reference, an Orin Nano
    // target. Read as an AGX Orin file the target is refused, naming the option and the line.
    void benchAndEvaluateAcrossDevices()
    {
        QTemporaryDir dir;
        const auto write = [&dir](const QString &kind, int count, const QString &name) {
            return writeTestFile(
                dir, name,
                ptwb::MeasurementCsv::write(measurementsOf(syntheticDataOf(kind, count, 3))));
        };
        const QString reference = write(QStringLiteral("orin-agx"), 300, QStringLiteral("r.csv"));
        const QString nano = write(QStringLiteral("orin-nano"), 200, QStringLiteral("nano.csv"));
        const QStringList bench {QStringLiteral("bench"),       QStringLiteral("accuracy"),
                                 QStringLiteral("--reference"), reference,
                                 QStringLiteral("--target"),    nano,
                                 QStringLiteral("--samples"),   QStringLiteral("20"),
                                 QStringLiteral("--repeats"),   QStringLiteral("1"),
                                 QStringLiteral("--configs"),   QStringLiteral("default"),
                                 QStringLiteral("--json")};
        const CliResult wrongKind = runCli(bench);
        QCOMPARE(wrongKind.exitCode, 2);
        QVERIFY2(wrongKind.err.startsWith(QStringLiteral("--target: nano.csv:")),
                 qPrintable(wrongKind.err));

        const CliResult across =
            runCli(bench + QStringList {QStringLiteral("--target-device"), "orin-nano"});
        QCOMPARE(across.exitCode, 0);
        QVERIFY2(across.err.contains(QStringLiteral("across devices: reference measured on "
                                                    "orin-agx, target on orin-nano")),
                 qPrintable(across.err));
        const QStringList lines = across.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 2);  // nn (from scratch on the target) and pt
        for (const QString &line : lines) {
            const QJsonObject row = QJsonDocument::fromJson(line.toUtf8()).object();
            const double time = row.value("time_mape").toObject().value("median").toDouble();
            QVERIFY2(time > 0 && time < 15, qPrintable(line));
        }

        const CliResult evaluate =
            runCli({QStringLiteral("evaluate"), QStringLiteral("--reference"), reference,
                    QStringLiteral("--reference-device"), QStringLiteral("orin-agx"),
                    QStringLiteral("--target"), nano, QStringLiteral("--target-device"),
                    QStringLiteral("orin-nano"), QStringLiteral("--strategies"),
                    QStringLiteral("optimal,pt"), QStringLiteral("--samples"), QStringLiteral("20"),
                    QStringLiteral("--repeats"), QStringLiteral("1"), QStringLiteral("--budgets"),
                    QStringLiteral("10:20:5"), QStringLiteral("--json")});
        QCOMPARE(evaluate.exitCode, 0);
        QCOMPARE(evaluate.out.trimmed().split(QLatin1Char('\n')).size(), 2);
    }

    void evaluateJsonContract()
    {
        const QString mobilenet = sharedDataFile(QStringLiteral("mobilenetv3_gld23k_train.csv"));
        PTWB_REQUIRE_SHARED_DATA(mobilenet);
        const CliResult result =
            runCli({QStringLiteral("evaluate"), QStringLiteral("--target"), mobilenet,
                    QStringLiteral("--strategies"), QStringLiteral("optimal,maxn,nvp,rnd,bs,gmd"),
                    QStringLiteral("--repeats"), QStringLiteral("2"), QStringLiteral("--json")});
        QCOMPARE(result.exitCode, 0);
        const QStringList lines = result.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 6);
        QStringList strategies;
        for (const QString &line : lines) {
            const QJsonObject object = QJsonDocument::fromJson(line.toUtf8()).object();
            for (const char *key :
                 {"strategy", "profiled", "time_penalty_median", "excess_power_area", "al", "al1",
                  "time_penalty_whisker_low", "time_penalty_q1", "time_penalty_q3",
                  "time_penalty_whisker_high", "excess_power_whisker_low", "excess_power_q1",
                  "excess_power_median", "excess_power_q3", "excess_power_whisker_high"})
                QVERIFY2(object.contains(QLatin1String(key)), qPrintable(line));
            // Each box in order, from the low whisker up.
            for (const char *prefix : {"time_penalty_", "excess_power_"}) {
                double previous = -1e300;
                for (const char *suffix : {"whisker_low", "q1", "median", "q3", "whisker_high"}) {
                    const double value =
                        object.value(QLatin1String(prefix) + QLatin1String(suffix)).toDouble();
                    QVERIFY2(value >= previous, qPrintable(line));
                    previous = value;
                }
            }
            strategies.append(object.value(QStringLiteral("strategy")).toString());
            if (strategies.last() == QLatin1String("optimal")) {
                QCOMPARE(object.value(QStringLiteral("time_penalty_median")).toDouble(), 0.0);
                QCOMPARE(object.value(QStringLiteral("al1")).toDouble(), 0.0);
            }
            if (strategies.last() == QLatin1String("maxn"))
                QCOMPARE(object.value(QStringLiteral("profiled")).toDouble(), 1.0);
        }
        QCOMPARE(
            strategies,
            (QStringList {QStringLiteral("optimal"), QStringLiteral("maxn"), QStringLiteral("nvp"),
                          QStringLiteral("rnd"), QStringLiteral("bs"), QStringLiteral("gmd")}));
        const CliResult needsReference =
            runCli({QStringLiteral("evaluate"), QStringLiteral("--target"), mobilenet,
                    QStringLiteral("--strategies"), QStringLiteral("pt")});
        QCOMPARE(needsReference.exitCode, 2);
        QCOMPARE(needsReference.err.trimmed(),
                 QStringLiteral("pt and safe need --reference REF.csv"));
    }

    void exportErrors()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        const CliResult missing = runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                                          QStringLiteral("--workload"), QStringLiteral("nope"),
                                          QStringLiteral("--out"), QStringLiteral("-")});
        QCOMPARE(missing.exitCode, 2);
        QCOMPARE(missing.err.trimmed(),
                 db + QStringLiteral(": no measurements of workload 'nope'"));
        const CliResult noOut = runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                                        QStringLiteral("--workload"), QStringLiteral("x")});
        QCOMPARE(noOut.exitCode, 2);
        QCOMPARE(noOut.err.trimmed(), QStringLiteral("missing --out; see --help for the options"));

        const QString csv = writeTestFile(dir, QStringLiteral("good.csv"), kGood);
        QCOMPARE(runCli({QStringLiteral("import"), csv, QStringLiteral("--db"), db,
                         QStringLiteral("--device"), QStringLiteral("orin-agx"),
                         QStringLiteral("--workload"), QStringLiteral("w")})
                     .exitCode,
                 0);
        const CliResult unwritable =
            runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                    QStringLiteral("--workload"), QStringLiteral("w"), QStringLiteral("--out"),
                    dir.filePath(QStringLiteral("no/such/dir/x.csv"))});
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY2(unwritable.err.contains(QStringLiteral("cannot write")),
                 qPrintable(unwritable.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
