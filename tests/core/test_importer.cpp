#include "shareddata.h"
#include "store/importer.h"
#include "storequery.h"

#include "testfiles.h"
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

namespace {

std::unique_ptr<Store> openStore(const QTemporaryDir &dir)
{
    Expected<std::unique_ptr<Store>> store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
    if (!store)
        qFatal("%s", qPrintable(store.error()));
    return std::move(store).value();
}

}  // namespace

class TestImporter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void importsSharedFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("workload");
        QTest::newRow("resnet18") << "resnet18_imagenet_train.csv"
                                  << "resnet18";
        QTest::newRow("mobilenetv3") << "mobilenetv3_gld23k_train.csv"
                                     << "mobilenetv3";
    }

    void importsSharedFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, workload);
        const QString path = sharedDataFile(file);
        PTWB_REQUIRE_SHARED_DATA(path);
        QTemporaryDir dir;
        auto store = openStore(dir);
        Importer importer(*store);
        const auto outcome = importer.run({path, QStringLiteral("orin-agx"), {}, workload});
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        QCOMPARE(outcome->rows, qint64(4368));
        QCOMPARE(outcome->distinctModes, qint64(4368));
        QCOMPARE(outcome->repeatedModes, qint64(0));
        QVERIFY(!outcome->alreadyImported);

        const auto summaries = store->summaries();
        QVERIFY(summaries.ok());
        QCOMPARE(summaries->size(), 1);
        QCOMPARE(summaries->first().measurements, qint64(4368));
        QCOMPARE(summaries->first().distinctModes, qint64(4368));

        // The same content again changes nothing and says so.
        const auto again = importer.run({path, QStringLiteral("orin-agx"), {}, workload});
        QVERIFY(again.ok());
        QVERIFY(again->alreadyImported);
        QCOMPARE(again->record.id, outcome->record.id);
        QVERIFY2(again->describe().contains(QStringLiteral("nothing changed")),
                 qPrintable(again->describe()));
        QCOMPARE(store->summaries()->first().measurements, qint64(4368));
    }

    void importExportImportRoundTrips()
    {
        const QString path = sharedDataFile(QStringLiteral("mobilenetv3_gld23k_train.csv"));
        PTWB_REQUIRE_SHARED_DATA(path);
        QTemporaryDir dir;
        auto store = openStore(dir);
        Importer importer(*store);
        QVERIFY(importer.run({path, QStringLiteral("orin-agx"), {}, QStringLiteral("a")}).ok());
        const auto first = store->measurements(QStringLiteral("orin-agx"), QStringLiteral("a"));
        QVERIFY(first.ok());
        const QString exported =
            writeTestFile(dir, QStringLiteral("export.csv"), MeasurementCsv::write(*first));
        QVERIFY(importer.run({exported, QStringLiteral("orin-agx"), {}, QStringLiteral("b")}).ok());
        const auto second = store->measurements(QStringLiteral("orin-agx"), QStringLiteral("b"));
        QVERIFY(second.ok());
        QCOMPARE(second->size(), first->size());
        for (int i = 0; i < first->size(); ++i) {
            QCOMPARE(second->at(i).mode, first->at(i).mode);
            // Bit-identical, not approximately equal.
            QVERIFY(second->at(i).timeMs == first->at(i).timeMs);
            QVERIFY(second->at(i).powerW == first->at(i).powerW);
        }
    }

    void repeatedModesKeptAndReported()
    {
        QTemporaryDir dir;
        const QString path = writeTestFile(dir, QStringLiteral("rep.csv"),
                                           "cores,cpu,gpu,mem,observed_time,observed_power\n"
                                           "12,2201600,1300500000,3199000000,100,40\n"
                                           "12,2201600,1300500000,3199000000,104,41\n"
                                           "4,1036800,318750000,2133000000,400,15\n");
        auto store = openStore(dir);
        const auto outcome =
            Importer(*store).run({path, QStringLiteral("orin-agx"), {}, QStringLiteral("w")});
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        QCOMPARE(outcome->rows, qint64(3));
        QCOMPARE(outcome->distinctModes, qint64(2));
        QCOMPARE(outcome->repeatedModes, qint64(1));
        QVERIFY2(outcome->describe().contains(QStringLiteral("1 modes appear on more than one "
                                                             "line: every line is kept")),
                 qPrintable(outcome->describe()));
        QCOMPARE(store->measurements(QStringLiteral("orin-agx"), QStringLiteral("w"))->size(), 3);
    }

    void badFileLeavesStoreAsItWas()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        const QString good = writeTestFile(dir, QStringLiteral("good.csv"),
                                           "cores,cpu,gpu,mem,observed_time,observed_power\n"
                                           "12,2201600,1300500000,3199000000,100,40\n");
        QVERIFY(
            Importer(*store).run({good, QStringLiteral("orin-agx"), {}, QStringLiteral("w")}).ok());
        const QString bad = writeTestFile(dir, QStringLiteral("bad.csv"),
                                          "cores,cpu,gpu,mem,observed_time,observed_power\n"
                                          "8,2201600,1300500000,3199000000,100,40\n"
                                          "8,2201600,1300500000,3199000000,100,-40\n");
        const auto outcome =
            Importer(*store).run({bad, QStringLiteral("orin-agx"), {}, QStringLiteral("w")});
        QVERIFY(!outcome.ok());
        QCOMPARE(outcome.errorKind(), ErrorKind::BadInput);
        QCOMPARE(outcome.error(),
                 QStringLiteral("bad.csv:3: column 'observed_power': '-40' must "
                                "be a positive power in watts"));
        QCOMPARE(store->measurements(QStringLiteral("orin-agx"), QStringLiteral("w"))->size(), 1);
        QCOMPARE(*store->connection().queryInt(QStringLiteral("SELECT count(*) FROM imports")),
                 qint64(1));
    }

    void importsSharedInferenceFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("workload");
        QTest::newRow("resnet18") << "resnet18_infer.csv"
                                  << "resnet18_infer";
        QTest::newRow("mobilenetv3") << "mobilenetv3_infer.csv"
                                     << "mobilenetv3_infer";
    }

    void importsSharedInferenceFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, workload);
        const QString path = sharedDataFile(file);
        PTWB_REQUIRE_SHARED_DATA(path);
        QTemporaryDir dir;
        auto store = openStore(dir);
        const auto outcome = Importer(*store).run({path, QStringLiteral("orin-agx"), {}, workload});
        QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        QCOMPARE(outcome->rows, qint64(2205));
        QCOMPARE(outcome->distinctModes, qint64(441));
        QCOMPARE(outcome->repeatedModes, qint64(0));
        QCOMPARE(outcome->inferenceBatches, (QVector<int> {1, 4, 16, 32, 64}));
        QVERIFY2(outcome->describe().contains(
                     QStringLiteral("imported 2205 rows (inference: 441 distinct modes at "
                                    "minibatch sizes 1, 4, 16, 32, 64)")),
                 qPrintable(outcome->describe()));

        // In the file itself: 2,205 rows, 441 modes at each of the five batch sizes.
        const QString db = store->path();
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM measurements")), qint64(2205));
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM (SELECT DISTINCT cores, "
                                         "cpu_khz, gpu_hz, emc_hz FROM measurements)")),
                 qint64(441));
        for (int batch : {1, 4, 16, 32, 64}) {
            QCOMPARE(queryInt(db,
                              QStringLiteral("SELECT count(*) FROM measurements WHERE "
                                             "inference_batch = %1")
                                  .arg(batch)),
                     qint64(441));
        }
        const auto summaries = store->summaries();
        QVERIFY(summaries.ok());
        QCOMPARE(summaries->size(), 1);
        QCOMPARE(summaries->first().measurements, qint64(2205));
        QCOMPARE(summaries->first().distinctModes, qint64(441));
        QCOMPARE(summaries->first().inferenceBatches, (QVector<int> {1, 4, 16, 32, 64}));

        // Exported and imported again under another name: the same rows, bs included.
        const auto first = store->measurements(QStringLiteral("orin-agx"), workload);
        QVERIFY(first.ok());
        const QString exported =
            writeTestFile(dir, QStringLiteral("export.csv"), MeasurementCsv::write(*first));
        QVERIFY(Importer(*store).run({exported, QStringLiteral("orin-agx"), {}, "copy"}).ok());
        const auto second = store->measurements(QStringLiteral("orin-agx"), "copy");
        QVERIFY(second.ok());
        QCOMPARE(second->size(), first->size());
        for (int i = 0; i < first->size(); ++i) {
            QCOMPARE(second->at(i).mode, first->at(i).mode);
            QCOMPARE(second->at(i).inferenceBatch, first->at(i).inferenceBatch);
            QVERIFY(second->at(i).timeMs == first->at(i).timeMs);
            QVERIFY(second->at(i).powerW == first->at(i).powerW);
        }
    }

    void badInferenceFileStoresNothing_data()
    {
        QTest::addColumn<QByteArray>("bs");
        QTest::addColumn<QString>("error");
        const QString range =
            QStringLiteral("expected an inference minibatch size in requests (1 to 4096)");
        QTest::newRow("zero") << QByteArray("0") << "'0' is out of range; " + range;
        QTest::newRow("negative") << QByteArray("-1") << "'-1' is out of range; " + range;
        QTest::newRow("fraction") << QByteArray("1.5") << "'1.5' is not a whole number; " + range;
        QTest::newRow("text") << QByteArray("abc") << "'abc' is not a whole number; " + range;
        QTest::newRow("empty") << QByteArray("") << "empty; " + range;
        QTest::newRow("too large") << QByteArray("4097") << "'4097' is out of range; " + range;
    }

    void badInferenceFileStoresNothing()
    {
        QFETCH(QByteArray, bs);
        QFETCH(QString, error);
        QTemporaryDir dir;
        auto store = openStore(dir);
        const QString good = writeTestFile(dir, QStringLiteral("good.csv"),
                                           "cores,cpu,gpu,mem,observed_time,bs,observed_power\n"
                                           "12,2201600,1300500000,3199000000,100,1.0,40\n");
        QVERIFY(Importer(*store).run({good, QStringLiteral("orin-agx"), {}, "w_infer"}).ok());
        const QString db = store->path();
        const qint64 rowsBefore = queryInt(db, QStringLiteral("SELECT count(*) FROM measurements"));
        QCOMPARE(rowsBefore, qint64(1));

        const QString bad = writeTestFile(dir, QStringLiteral("bad.csv"),
                                          "cores,cpu,gpu,mem,observed_time,bs,observed_power\n"
                                          "8,2201600,1300500000,3199000000,100,4.0,40\n"
                                          "8,2201600,1300500000,3199000000,100," +
                                              bs + ",40\n");
        for (const QString &workload : {QStringLiteral("w_infer"), QStringLiteral("fresh")}) {
            const auto outcome =
                Importer(*store).run({bad, QStringLiteral("orin-agx"), {}, workload});
            QVERIFY(!outcome.ok());
            QCOMPARE(outcome.errorKind(), ErrorKind::BadInput);
            QCOMPARE(outcome.error(), QStringLiteral("bad.csv:3: column 'bs': ") + error);
        }
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM measurements")), rowsBefore);
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM imports")), qint64(1));
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM workloads")), qint64(1));
    }

    // A training file into an inference workload is refused whole, and the other way round.
    void trainingAndInferenceDoNotMixInOneWorkload()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        const QString inference = writeTestFile(dir, QStringLiteral("i.csv"),
                                                "cores,cpu,gpu,mem,observed_time,bs,"
                                                "observed_power\n"
                                                "12,2201600,1300500000,3199000000,100,16,40\n");
        const QString training = writeTestFile(dir, QStringLiteral("t.csv"),
                                               "cores,cpu,gpu,mem,observed_time,observed_power\n"
                                               "12,2201600,1300500000,3199000000,100,40\n");
        QVERIFY(Importer(*store).run({inference, QStringLiteral("orin-agx"), {}, "inf"}).ok());
        QVERIFY(Importer(*store).run({training, QStringLiteral("orin-agx"), {}, "train"}).ok());
        const auto intoInference =
            Importer(*store).run({training, QStringLiteral("orin-agx"), {}, "inf"});
        QVERIFY(!intoInference.ok());
        QCOMPARE(intoInference.errorKind(), ErrorKind::BadInput);
        QVERIFY2(intoInference.error().contains(
                     QStringLiteral("workload 'inf' on orin-agx holds 1 inference measurements "
                                    "and t.csv has training ones")),
                 qPrintable(intoInference.error()));
        const auto intoTraining =
            Importer(*store).run({inference, QStringLiteral("orin-agx"), {}, "train"});
        QVERIFY(!intoTraining.ok());
        QVERIFY2(intoTraining.error().contains(
                     QStringLiteral("workload 'train' on orin-agx holds 1 training measurements "
                                    "and i.csv has inference ones")),
                 qPrintable(intoTraining.error()));
        QCOMPARE(queryInt(store->path(), QStringLiteral("SELECT count(*) FROM measurements")),
                 qint64(2));
    }

    void deviceResolution_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("error");
        QTest::newRow("builtin kind") << "orin-nano"
                                      << ""
                                      << "";
        QTest::newRow("named device with kind") << "lab-nano-1"
                                                << "orin-nano"
                                                << "";
        QTest::newRow("unknown") << "tx2"
                                 << ""
                                 << "unknown device 'tx2'; expected a device kind (agx-thor, "
                                    "orin-agx, orin-nano, orin-nano-super, orin-nx, xavier-agx, "
                                    "xavier-nx) or a device already in the store";
    }

    void deviceResolution()
    {
        QFETCH(QString, device);
        QFETCH(QString, kind);
        QFETCH(QString, error);
        QTemporaryDir dir;
        const QString path = writeTestFile(dir, QStringLiteral("nano.csv"),
                                           "cores,cpu,gpu,mem,observed_time,observed_power\n"
                                           "6,1510400,624750000,2133000000,300,12.5\n");
        auto store = openStore(dir);
        const auto outcome = Importer(*store).run({path, device, kind, QStringLiteral("w")});
        if (error.isEmpty()) {
            QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
            QCOMPARE(outcome->deviceKind, QStringLiteral("orin-nano"));
            // Later imports find the device's kind in the store.
            QCOMPARE(*Importer::resolveKind(*store, device, {}), QStringLiteral("orin-nano"));
        } else {
            QVERIFY(!outcome.ok());
            QCOMPARE(outcome.error(), error);
        }
    }

    void unreadableFile()
    {
        QTemporaryDir dir;
        auto store = openStore(dir);
        const auto outcome = Importer(*store).run({dir.filePath(QStringLiteral("missing.csv")),
                                                   QStringLiteral("orin-agx"),
                                                   {},
                                                   QStringLiteral("w")});
        QVERIFY(!outcome.ok());
        QCOMPARE(outcome.errorKind(), ErrorKind::BadInput);
        QVERIFY2(outcome.error().contains(QStringLiteral("missing.csv: cannot read")),
                 qPrintable(outcome.error()));
    }
};

QTEST_GUILESS_MAIN(TestImporter)
#include "test_importer.moc"
