#include "core/rawrunfixture.h"
#include "shareddata.h"
#include "store/importer.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::test;

namespace {

std::unique_ptr<Store> openStore(const QTemporaryDir &dir)
{
    Expected<std::unique_ptr<Store>> store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
    if (!store)
        qFatal("%s", qPrintable(store.error()));
    return std::move(store).value();
}

const PowerMode kAgxMode {4, 1190400, 624750000, 3199000000};
const PowerMode kAgxOther {8, 2201600, 1300500000, 2133000000};

QString sharedRawRun()
{
    return QDir(QStringLiteral(PTWB_SHARED_DATA_DIR))
        .filePath(QStringLiteral("raw-runs/orin-agx/resnet18/pm_2_1344000_114750000_3199000000"));
}

qint64 storedRows(Store &store, const QString &workload)
{
    const auto rows = store.measurements(QStringLiteral("orin-agx"), workload);
    return rows ? rows->size() : -1;
}

// Replaces the last line of a file by its first `keep` characters, as a copy cut short would.
void truncateLastLine(const QString &path, int keep)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QByteArray data = file.readAll();
    file.close();
    data.chop(1);  // the final newline
    const int lastLine = int(data.lastIndexOf('\n')) + 1;
    data.truncate(lastLine + keep);
    QVERIFY(writeFileText(path, data));
}

}  // namespace

class TestRawRunImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The study's own folder: 50 minibatches, the first dropped, power settles at 12.2 s.
    void reducesTheStudysRunFolder()
    {
        PTWB_REQUIRE_SHARED_DATA(sharedRawRun());
        QTemporaryDir dir;
        auto store = openStore(dir);
        const auto outcome =
            Importer(*store).run({sharedRawRun(), QStringLiteral("orin-agx"), {}, "resnet18"});
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        QCOMPARE(outcome->folders.size(), 1);
        const RunFolderResult &folder = outcome->folders.front();
        QVERIFY2(folder.ok(), qPrintable(folder.error));
        QCOMPARE(folder.machine, QStringLiteral("NVIDIA Orin Jetson-Small Developer Kit"));
        QCOMPARE(folder.reduction.minibatches, 41);
        QVERIFY(qAbs(folder.reduction.settledAtS - 12.23) < 0.01);
        QVERIFY(qAbs(folder.reduction.timeMs - 777.9) < 0.1);
        QVERIFY(qAbs(folder.reduction.powerW - 16.16) < 0.01);

        const auto rows = store->measurements(QStringLiteral("orin-agx"), "resnet18");
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->front().mode, (PowerMode {2, 1344000, 114750000, 3199000000}));
        QCOMPARE(rows->front().minibatches, 41);
        QVERIFY(rows->front().timeSpreadMs.has_value());
        QVERIFY(rows->front().powerSpreadW.has_value());
        QVERIFY(*rows->front().timeSpreadMs > 0);
    }

    void reducesToTheSteadyValues()
    {
        QTemporaryDir dir;
        const QString runs = dir.filePath(QStringLiteral("runs"));
        RawRunSpec spec;
        spec.mode = kAgxMode;
        spec.timeMs = 420;
        spec.powerW = 31.5;
        writeRawRun(runs, spec);
        auto store = openStore(dir);
        const auto outcome = Importer(*store).run({runs, QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        const ReducedRun &run = outcome->folders.front().reduction;
        // Neither the slow first minibatch nor the idle and ramp samples pull the medians.
        QVERIFY2(qAbs(run.timeMs - 420) < 420 * 0.01, qPrintable(QString::number(run.timeMs)));
        QVERIFY2(qAbs(run.powerW - 31.5) < 31.5 * 0.01, qPrintable(QString::number(run.powerW)));
        QVERIFY(run.minibatches >= 40);
    }

    // Every way a folder can be wrong gives its own error naming folder, file, line and what was
    // expected; the good folders beside it are imported, and nothing already stored changes.
    void rejectsBadFoldersAndImportsTheGoodOnes_data()
    {
        QTest::addColumn<QString>("breakage");
        QTest::addColumn<QString>("expected");
        const QString folder = RawRunFiles::folderNameOf(kAgxOther);
        const QString dump = folder + QStringLiteral("/log_file_pm_14: ");
        const QString epochs = folder + QStringLiteral("/mn_nw4_pf2_epoch_stats.csv");
        const QString power = folder + QStringLiteral("/mn_nw4_pf2_tegrastats.csv");
        const auto row = [](const char *name, const char *breakage, const QString &expected) {
            QTest::newRow(name) << QString::fromLatin1(breakage) << expected;
        };
        row("clocks differ from the name", "clocks",
            dump + "the log says CPU cores online: 6, the folder name 8");
        row("mode not in the tables", "table",
            "pm_8_2201600_1300000000_2133000000: the folder names a mode the Jetson AGX Orin");
        row("another SoC", "soc",
            dump + "the log's SOC family is tegra194 (machine 'Jetson-AGX'), not");
        row("missing epoch stats", "missing",
            folder + ": no *_epoch_stats.csv file; expected the per-minibatch log");
        row("two epoch stats", "duplicate", folder + ": 2 files match *_epoch_stats.csv");
        row("truncated epoch stats", "truncated", epochs + ":51: 3 fields, expected 6");
        row("implausible power", "power",
            power + ":3: column 'power cur': '-4000' is not a module power in milliwatts");
        row("too few clean minibatches", "short", epochs + ": 1 clean minibatches (of 8");
        row("power never settles", "unsettled", power + ": power never settled");
        row("no power sample in the window", "nosample", power + ": no power sample between");
        row("name is not a mode", "name",
            "pm_8_fast_gpu_mem: not a run folder name; expected pm_<cores>");
    }

    void rejectsBadFoldersAndImportsTheGoodOnes()
    {
        QFETCH(QString, breakage);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        auto store = openStore(dir);
        const QString runs = dir.filePath(QStringLiteral("runs"));

        // Something stored before, which must survive.
        RawRunSpec earlier;
        earlier.mode = kAgxMode;
        QVERIFY(Importer(*store)
                    .run({writeRawRun(dir.filePath(QStringLiteral("earlier")), earlier),
                          QStringLiteral("orin-agx"),
                          {},
                          "w"})
                    .ok());
        QCOMPARE(storedRows(*store, "w"), qint64(1));

        RawRunSpec good;
        good.mode = PowerMode {12, 2201600, 1300500000, 3199000000};
        writeRawRun(runs, good);

        RawRunSpec bad;
        bad.mode = kAgxOther;
        QString name;
        if (breakage == QLatin1String("clocks")) {
            bad.loggedClocks = PowerMode {6, 2201600, 1300500000, 2133000000};
        } else if (breakage == QLatin1String("table")) {
            bad.mode.gpuHz = 1300000000;
        } else if (breakage == QLatin1String("soc")) {
            bad.socFamily = QStringLiteral("tegra194");
            bad.machine = QStringLiteral("Jetson-AGX");
        } else if (breakage == QLatin1String("short")) {
            bad.minibatches = 8;  // training died early; the sampler kept going
            bad.samplesUntilS = 30;
        } else if (breakage == QLatin1String("unsettled")) {
            bad.oscillationW = 3;  // ±3 W around 20 W all run long
        } else if (breakage == QLatin1String("nosample")) {
            // The sampler ran fast for a moment after the first minibatch, then died: power
            // settles (5.56 s to 5.84 s) but no sample falls in the clean minibatches.
            bad.sampleEveryS = 0.07;
            bad.rampSamples = 0;
            bad.samplesUntilS = 5.9;
        } else if (breakage == QLatin1String("name")) {
            name = QStringLiteral("pm_8_fast_gpu_mem");
        }
        const QString path = writeRawRun(runs, bad, name);
        const QDir folder(path);
        if (breakage == QLatin1String("missing")) {
            QVERIFY(QFile::remove(folder.filePath(QStringLiteral("mn_nw4_pf2_epoch_stats.csv"))));
        } else if (breakage == QLatin1String("duplicate")) {
            QVERIFY(QFile::copy(folder.filePath(QStringLiteral("mn_nw4_pf2_epoch_stats.csv")),
                                folder.filePath(QStringLiteral("mn_nw8_pf2_epoch_stats.csv"))));
        } else if (breakage == QLatin1String("truncated")) {
            truncateLastLine(folder.filePath(QStringLiteral("mn_nw4_pf2_epoch_stats.csv")), 10);
        } else if (breakage == QLatin1String("power")) {
            QFile file(folder.filePath(QStringLiteral("mn_nw4_pf2_tegrastats.csv")));
            QVERIFY(file.open(QIODevice::ReadOnly));
            QList<QByteArray> lines = file.readAll().split('\n');
            file.close();
            QList<QByteArray> fields = lines[2].split(',');
            fields[4] = "-4000";
            lines[2] = fields.join(',');
            QVERIFY(writeFileText(file.fileName(), lines.join('\n')));
        }

        const auto outcome = Importer(*store).run({runs, QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        QCOMPARE(outcome->folders.size(), 2);
        QCOMPARE(outcome->rejectedFolders(), qint64(1));
        QCOMPARE(outcome->rows, qint64(1));
        const auto rejected = std::find_if(outcome->folders.cbegin(), outcome->folders.cend(),
                                           [](const RunFolderResult &f) { return !f.ok(); });
        QVERIFY2(rejected->error.startsWith(expected), qPrintable(rejected->error));
        QVERIFY(outcome->describe().contains(rejected->error));
        QCOMPARE(storedRows(*store, "w"), qint64(2));  // the earlier one and the good one
    }

    void failsWhenNoFolderIsGoodAndStoresNothing()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        const QString runs = dir.filePath(QStringLiteral("runs"));
        for (int cores : {2, 4}) {
            RawRunSpec bad;
            bad.mode = kAgxMode;
            bad.mode.cores = cores;
            bad.minibatches = 3;
            writeRawRun(runs, bad);
        }
        const auto outcome = Importer(*store).run({runs, QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY(!outcome.ok());
        QCOMPARE(outcome.errorKind(), ErrorKind::BadInput);
        QVERIFY2(outcome.error().contains(QStringLiteral("none of the 2 run folders")),
                 qPrintable(outcome.error()));
        QVERIFY(outcome.error().contains(QStringLiteral("pm_2_1190400_624750000_3199000000/")));
        QVERIFY(outcome.error().contains(QStringLiteral("pm_4_1190400_624750000_3199000000/")));
        QCOMPARE(storedRows(*store, "w"), qint64(0));
    }

    void aSecondImportAddsOnlyNewFolders()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        const QString runs = dir.filePath(QStringLiteral("runs"));
        RawRunSpec spec;
        spec.mode = kAgxMode;
        writeRawRun(runs, spec);
        QCOMPARE(Importer(*store).run({runs, QStringLiteral("orin-agx"), {}, "w"})->rows, 1);

        spec.mode = kAgxOther;
        writeRawRun(runs, spec);
        const auto again = Importer(*store).run({runs, QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY2(again.ok(), qPrintable(again.error()));
        QCOMPARE(again->rows, qint64(1));
        QCOMPARE(again->alreadyImportedFolders(), qint64(1));
        QCOMPARE(storedRows(*store, "w"), qint64(2));

        const auto third = Importer(*store).run({runs, QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY(third->alreadyImported);
        QCOMPARE(storedRows(*store, "w"), qint64(2));
    }

    void aDryRunListsWhatWouldBeImportedAndStoresNothing()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        const QString runs = dir.filePath(QStringLiteral("runs"));
        RawRunSpec spec;
        spec.mode = kAgxMode;
        spec.timeMs = 250;
        writeRawRun(runs, spec);
        ImportRequest request {runs, QStringLiteral("orin-agx"), {}, "w"};
        request.dryRun = true;
        const auto outcome = Importer(*store).run(request);
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        QCOMPARE(outcome->rows, qint64(1));
        QVERIFY(outcome->describe().startsWith(QStringLiteral("would import 1 of 1 run folders")));
        QVERIFY(outcome->describe().contains(QStringLiteral("pm_4_1190400_624750000_3199000000: "
                                                            "250.")));
        QCOMPARE(storedRows(*store, "w"), qint64(0));
        QVERIFY(!store->summaries()->size());
    }

    void aSingleRunFolderCanBeImportedByItself()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        RawRunSpec spec;
        spec.mode = kAgxMode;
        const QString path = writeRawRun(dir.filePath(QStringLiteral("runs")), spec);
        const auto outcome = Importer(*store).run({path, QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        QCOMPARE(outcome->rows, qint64(1));
    }

    void aFolderWithoutRunsIsBadInput()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        QDir(dir.path()).mkpath(QStringLiteral("empty/notes"));
        const auto outcome = Importer(*store).run(
            {dir.filePath(QStringLiteral("empty")), QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY(!outcome.ok());
        QVERIFY2(outcome.error().contains(QStringLiteral("no run folders; expected a summary CSV")),
                 qPrintable(outcome.error()));
    }

    void deviceTextInErrorsIsPlain()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        const QString runs = dir.filePath(QStringLiteral("runs"));
        RawRunSpec good;
        good.mode = kAgxMode;
        writeRawRun(runs, good);
        RawRunSpec bad;
        bad.mode = kAgxOther;
        bad.socFamily = QStringLiteral("tegra\x1b[31m");
        bad.machine = QStringLiteral("evil\x07machine");
        writeRawRun(runs, bad);
        const auto outcome = Importer(*store).run({runs, QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        const QString error = outcome->folders.last().error;
        QVERIFY2(error.contains(QStringLiteral("tegra?[31m")), qPrintable(error));
        QVERIFY(error.contains(QStringLiteral("evil?machine")));

        // A folder name is quoted the same way.
        writeRawRun(runs, good, QStringLiteral("pm_\x1b]0;title\x07"));
        const auto again = Importer(*store).run({runs, QStringLiteral("orin-agx"), {}, "w"});
        QVERIFY2(again.ok(), qPrintable(again.error()));
        const auto named = std::find_if(
            again->folders.cbegin(), again->folders.cend(),
            [](const RunFolderResult &f) { return f.error.contains(QLatin1String("not a run")); });
        QVERIFY(named != again->folders.cend());
        QVERIFY2(named->error.startsWith(QStringLiteral("pm_?]0;title?: not a run folder name")),
                 qPrintable(named->error));
    }
};

QTEST_GUILESS_MAIN(TestRawRunImport)
#include "test_rawrunimport.moc"
