// Samples to accuracy (issue 17): the relation's interpolation, its file layout and its store.
#include "store/convergence.h"
#include "store/convergencecsv.h"
#include "store/convergencestore.h"
#include "store/schema.h"
#include "store/store.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ptwb;

namespace {

const QByteArray kHeader = "batch_size,samples_to_target\n";
const QByteArray kRows = "8,1500000\n16,1550000\n32,1700000\n";

ConvergenceRelation relation(const QString &workload, const QVector<ConvergencePoint> &points,
                             const QString &provenance = QStringLiteral("user"))
{
    ConvergenceRelation r;
    r.workload = workload;
    r.points = points;
    r.provenance = provenance;
    r.source = QStringLiteral("test");
    return r;
}

}  // namespace

class TestConvergence : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_count = 0;

    std::unique_ptr<Store> freshStore()
    {
        auto store = Store::open(m_dir.filePath(QStringLiteral("c%1.sqlite").arg(++m_count)));
        return store ? std::move(store).value() : nullptr;
    }

private Q_SLOTS:
    void accepts_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QVector<int>>("batches");
        QTest::addColumn<QVector<double>>("samples");
        QTest::addColumn<double>("accuracy");  // 0: none
        const QVector<int> three {8, 16, 32};
        const QVector<double> samples {1500000, 1550000, 1700000};
        QTest::newRow("plain") << kHeader + kRows << three << samples << 0.0;
        QTest::newRow("crlf") << QByteArray(kHeader + kRows).replace("\n", "\r\n") << three
                              << samples << 0.0;
        QTest::newRow("bom, blank lines, no final newline")
            << "\xEF\xBB\xBF\n" + kHeader + "8,1500000\n\n16,1550000\r\n32,1700000" << three
            << samples << 0.0;
        QTest::newRow("any order, quoted, unsorted")
            << QByteArray("\"samples_to_target\", batch_size\n1700000,32\n1500000,\"8\"\n"
                          "1550000,16.0\n")
            << three << samples << 0.0;
        QTest::newRow("target accuracy")
            << QByteArray("batch_size,samples_to_target,target_accuracy\n8,1500000,0.93\n"
                          "16,1550000,0.93\n32,1700000,0.93\n")
            << three << samples << 0.93;
        // as convergence.py writes it: the samples win, the epochs are only checked
        QTest::newRow("samples and epochs")
            << QByteArray("batch_size,samples_to_target,epochs_to_target\n8,1500000,1\n"
                          "16,1550000,1\n32,1700000,1\n")
            << three << samples << 0.0;
        QTest::newRow("epochs") << QByteArray("batch_size,epochs_to_target\n8,30\n16,31\n32,34\n")
                                << three << samples << 0.0;
    }

    void accepts()
    {
        QFETCH(QByteArray, data);
        QFETCH(QVector<int>, batches);
        QFETCH(QVector<double>, samples);
        QFETCH(double, accuracy);
        const auto parsed = ConvergenceCsv::parse(data, QStringLiteral("c.csv"), 50000.0);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->points.size(), batches.size());
        for (int i = 0; i < batches.size(); ++i) {
            QCOMPARE(parsed->points[i].batchSize, batches[i]);
            QCOMPARE(parsed->points[i].samples, samples[i]);
        }
        QCOMPARE(parsed->targetAccuracy.value_or(0), accuracy);
    }

    void rejects_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QString>("error");
        const QString layout = QStringLiteral("expected batch_size and samples_to_target or "
                                              "epochs_to_target, optionally target_accuracy");
        QTest::newRow("empty") << QByteArray("\r\n\n")
                               << "c.csv:1: the file is empty; expected the header line "
                                  "'batch_size,samples_to_target'";
        QTest::newRow("header only")
            << kHeader
            << "c.csv:2: no rows after the header; expected at least 2 rows of "
               "batch_size,samples_to_target";
        QTest::newRow("one row") << kHeader + "8,1500000\n"
                                 << "c.csv:2: only one batch size; expected at least 2 rows to "
                                    "relate batch size and samples";
        QTest::newRow("unknown column")
            << QByteArray("batch_size,samples_to_target,lr\n")
            << "c.csv:1: column 'lr': not a column of a samples-to-accuracy file; " + layout;
        QTest::newRow("twice") << QByteArray("batch_size,batch_size\n")
                               << "c.csv:1: column 'batch_size': appears twice in the header";
        QTest::newRow("no batch") << QByteArray("samples_to_target\n1\n")
                                  << "c.csv:1: column 'batch_size': missing from the header; " +
                layout;
        QTest::newRow("no samples") << QByteArray("batch_size\n8\n")
                                    << "c.csv:1: column 'samples_to_target': missing from the "
                                       "header; expected samples_to_target or epochs_to_target";
        QTest::newRow("repeated batch")
            << kHeader + "8,1500000\n16,1550000\n8.0,1600000\n"
            << "c.csv:4: column 'batch_size': 8 is on line 2 too; expected each batch size once";
        QTest::newRow("batch zero") << kHeader + "0,1500000\n16,1550000\n"
                                    << "c.csv:2: column 'batch_size': '0' is out of range; "
                                       "expected a training minibatch size (1 to 4096)";
        QTest::newRow("batch too large") << kHeader + "8,1500000\n4097,1550000\n"
                                         << "c.csv:3: column 'batch_size': '4097' is out of "
                                            "range; expected a training minibatch size (1 to "
                                            "4096)";
        QTest::newRow("batch fraction") << kHeader + "8.5,1500000\n16,1550000\n"
                                        << "c.csv:2: column 'batch_size': '8.5' is not a whole "
                                           "number; expected a training minibatch size (1 to "
                                           "4096)";
        QTest::newRow("batch empty") << kHeader + ",1500000\n16,1550000\n"
                                     << "c.csv:2: column 'batch_size': empty; expected a training "
                                        "minibatch size (1 to 4096)";
        QTest::newRow("samples text") << kHeader + "8,many\n16,1550000\n"
                                      << "c.csv:2: column 'samples_to_target': 'many' is not a "
                                         "number; expected a number of samples";
        QTest::newRow("samples infinite") << kHeader + "8,inf\n16,1550000\n"
                                          << "c.csv:2: column 'samples_to_target': 'inf' is not "
                                             "a number; expected a number of samples";
        QTest::newRow("samples zero") << kHeader + "8,1500000\n16,0\n"
                                      << "c.csv:3: column 'samples_to_target': '0' must be a "
                                         "positive number of samples";
        QTest::newRow("fields") << kHeader + "8,1500000,3\n16,1550000\n"
                                << "c.csv:2: 3 fields, expected 2 (batch_size,samples_to_target)";
        QTest::newRow("truncated") << kHeader + "8,1500000\n16"
                                   << "c.csv:3: the last line is cut short (1 of 2 fields, no "
                                      "final newline); the file looks truncated";
        QTest::newRow("accuracy percent")
            << QByteArray("batch_size,samples_to_target,target_accuracy\n8,1500000,93\n")
            << "c.csv:2: column 'target_accuracy': '93' is out of range; expected an accuracy "
               "between 0 and 1 (e.g. 0.93)";
        QTest::newRow("accuracy differs")
            << QByteArray("batch_size,samples_to_target,target_accuracy\n8,1500000,0.93\n"
                          "16,1550000,0.9\n")
            << "c.csv:3: column 'target_accuracy': '0.9' differs from line 2's '0.93'; expected "
               "one target accuracy for the whole file";
        QTest::newRow("epochs negative")
            << QByteArray("batch_size,epochs_to_target\n8,30\n16,-1\n")
            << "c.csv:3: column 'epochs_to_target': '-1' must be a positive number of epochs";
    }

    void rejects()
    {
        QFETCH(QByteArray, data);
        QFETCH(QString, error);
        const auto parsed = ConvergenceCsv::parse(data, QStringLiteral("c.csv"), 50000.0);
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error(), error);
        QCOMPARE(parsed.errorKind(), ErrorKind::BadInput);
    }

    // Epochs are samples only with the dataset's size: without it, bad input about that field.
    void epochsNeedTheDatasetSize()
    {
        const auto parsed = ConvergenceCsv::parse("batch_size,epochs_to_target\n8,30\n16,31\n",
                                                  QStringLiteral("c.csv"));
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.field(), InputField::DatasetSamples);
        QCOMPARE(parsed.error(),
                 QStringLiteral("c.csv:1: column 'epochs_to_target': epochs without the "
                                "dataset's size; expected the training samples per epoch to "
                                "turn them into samples"));
        const auto converted = ConvergenceCsv::parse("batch_size,epochs_to_target\n8,30\n16,31\n",
                                                     QStringLiteral("c.csv"), 50000.0);
        QVERIFY(converted.ok());
        QVERIFY(converted->fromEpochs);
        QCOMPARE(converted->points[1].samples, 1550000.0);
    }

    void writesWhatItReads()
    {
        ConvergenceRelation written =
            relation(QStringLiteral("w"), {{8, 1500000}, {16, 1550000.5}, {128, 2212232}});
        written.targetAccuracy = 0.6;
        const QByteArray csv = ConvergenceCsv::write(written);
        QCOMPARE(csv,
                 QByteArray("batch_size,samples_to_target,target_accuracy\n8,1500000.0,0.6\n"
                            "16,1550000.5,0.6\n128,2212232.0,0.6\n"));
        const auto read = ConvergenceCsv::parse(csv, QStringLiteral("w.csv"));
        QVERIFY2(read.ok(), qPrintable(read.error()));
        QCOMPARE(read->points, written.points);
        QCOMPARE(read->targetAccuracy, written.targetAccuracy);
    }

    void samplesAt_data()
    {
        QTest::addColumn<int>("batch");
        QTest::addColumn<double>("samples");
        // known: 16 -> 1000, 64 -> 4000 (a power law of exponent 1 between them), 256 -> 8000
        QTest::newRow("known") << 64 << 4000.0;
        QTest::newRow("smallest") << 16 << 1000.0;
        QTest::newRow("largest") << 256 << 8000.0;
        QTest::newRow("log-log between") << 32 << 2000.0;  // sqrt(1000 * 4000)
        QTest::newRow("log-log, other segment") << 128 << std::sqrt(4000.0 * 8000.0);
        QTest::newRow("below: flat") << 1 << 1000.0;
        QTest::newRow("above: as many steps") << 1024 << 32000.0;
    }

    void samplesAt()
    {
        QFETCH(int, batch);
        QFETCH(double, samples);
        const ConvergenceRelation r =
            relation(QStringLiteral("w"), {{16, 1000}, {64, 4000}, {256, 8000}});
        QVERIFY(std::fabs(r.samplesAt(batch) - samples) < 1e-9 * samples);
    }

    void normalisedToOneBatch()
    {
        const ConvergenceRelation r =
            relation(QStringLiteral("w"), {{16, 1000}, {64, 4000}, {256, 8000}});
        QCOMPARE(r.relativeTo(16), (QVector<double> {1, 4, 8}));
        QCOMPARE(r.relativeTo(64), (QVector<double> {0.25, 1, 2}));
        QCOMPARE(r.relativeSamples(32, 16), 2.0);
        QVERIFY(std::isnan(ConvergenceRelation().samplesAt(16)));
        QVERIFY(std::isnan(r.samplesAt(0)));
    }

    void problems_data()
    {
        QTest::addColumn<QVector<int>>("batches");
        QTest::addColumn<QString>("provenance");
        QTest::addColumn<QString>("problem");
        QTest::newRow("fine") << QVector<int> {8, 16} << "proxy" << QString();
        QTest::newRow("one point") << QVector<int> {8} << "user"
                                   << "1 batch size(s); a samples-to-accuracy relation needs at "
                                      "least 2";
        QTest::newRow("descending") << QVector<int> {16, 8} << "user"
                                    << "batch size 8 after 16; expected each batch size once, "
                                       "ascending";
        QTest::newRow("provenance") << QVector<int> {8, 16} << "guess"
                                    << "provenance 'guess' is not one of user, proxy, simulated";
    }

    void problems()
    {
        QFETCH(QVector<int>, batches);
        QFETCH(QString, provenance);
        QFETCH(QString, problem);
        QVector<ConvergencePoint> points;
        for (int batch : batches)
            points.append({batch, 1000.0 * batch});
        QCOMPARE(relation(QStringLiteral("w"), points, provenance).problem(), problem);
    }

    void storeRoundTrip()
    {
        auto store = freshStore();
        QVERIFY(store);
        ConvergenceStore convergence(*store);
        const auto none = convergence.load(QStringLiteral("resnet18"));
        QVERIFY2(none.ok(), qPrintable(none.error()));
        QVERIFY(!none->has_value());

        ConvergenceRelation written =
            relation(QStringLiteral("resnet18"), {{8, 1514694}, {16, 1547005}, {32, 1709031.5}},
                     QStringLiteral("simulated"));
        written.targetAccuracy = 0.6;
        written.source = QStringLiteral("simulator convergence model (SIMULATED)");
        const Status stored = convergence.replace(written);
        QVERIFY2(stored.ok(), qPrintable(stored.error()));
        QVERIFY(convergence.replace(relation(QStringLiteral("bert"), {{4, 10}, {8, 12}})).ok());

        const auto loaded = convergence.load(QStringLiteral("resnet18"));
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QVERIFY(loaded->has_value());
        const ConvergenceRelation &read = **loaded;
        QCOMPARE(read.workload, written.workload);
        QCOMPARE(read.points, written.points);
        QCOMPARE(read.targetAccuracy, written.targetAccuracy);
        QCOMPARE(read.provenance, written.provenance);
        QCOMPARE(read.source, written.source);
        QVERIFY(!read.recordedAt.isEmpty());

        const auto all = convergence.all();
        QVERIFY2(all.ok(), qPrintable(all.error()));
        QCOMPARE(all->size(), 2);
        QCOMPARE(all->at(0).workload, QStringLiteral("bert"));
        QVERIFY(!all->at(0).targetAccuracy.has_value());
        QCOMPARE(all->at(1).points, written.points);

        // replacing drops the rows of the old relation: no batch of it survives
        ConvergenceRelation user = relation(QStringLiteral("resnet18"), {{64, 5}, {128, 9}});
        QVERIFY(convergence.replace(user).ok());
        const auto replaced = convergence.load(QStringLiteral("resnet18"));
        QVERIFY(replaced.ok() && replaced->has_value());
        QCOMPARE((*replaced)->points, user.points);
        QCOMPARE((*replaced)->provenance, QStringLiteral("user"));
        QVERIFY(!(*replaced)->targetAccuracy.has_value());
    }

    // A replace that fails half-way (here the database refuses the last row) leaves the old
    // relation whole: never a mix of two provenances, never a relation gone.
    void failedReplaceKeepsTheOldRelation()
    {
        auto store = freshStore();
        QVERIFY(store);
        ConvergenceStore convergence(*store);
        const ConvergenceRelation old =
            relation(QStringLiteral("resnet18"), {{8, 100}, {16, 110}}, QStringLiteral("user"));
        QVERIFY(convergence.replace(old).ok());
        QVERIFY(store->connection()
                    .exec(QStringLiteral(
                        "CREATE TRIGGER refuse BEFORE INSERT ON convergence WHEN "
                        "NEW.batch_size = 4096 BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"))
                    .ok());
        const Status failed = convergence.replace(relation(
            QStringLiteral("resnet18"), {{8, 1}, {16, 2}, {4096, 3}}, QStringLiteral("simulated")));
        QVERIFY(!failed.ok());
        QVERIFY2(failed.error().contains(QLatin1String("disk on fire")),
                 qPrintable(failed.error()));
        QVERIFY2(failed.error().startsWith(QLatin1String("resnet18: cannot store the samples to "
                                                         "accuracy at batch size 4096")),
                 qPrintable(failed.error()));
        const auto kept = convergence.load(QStringLiteral("resnet18"));
        QVERIFY(kept.ok() && kept->has_value());
        QCOMPARE((*kept)->points, old.points);
        QCOMPARE((*kept)->provenance, QStringLiteral("user"));

        // a relation that cannot be stored is bad input, and the old one stays too
        const Status refused = convergence.replace(
            relation(QStringLiteral("resnet18"), {{8, 1}}, QStringLiteral("simulated")));
        QCOMPARE(refused.errorKind(), ErrorKind::BadInput);
        QCOMPARE(refused.field(), InputField::Workload);
        QCOMPARE(convergence.load(QStringLiteral("resnet18"))->value().points, old.points);
    }

    // A store of schema version 6 gains the (empty) table when it is opened.
    void version6StoreGainsTheTable()
    {
        const QString path = m_dir.filePath(QStringLiteral("v6.sqlite"));
        {
            Expected<SqliteConnection> db = SqliteConnection::open(path, true);
            QVERIFY(db.ok());
            QVERIFY(Schema::migrate(*db, 6).ok());
            QVERIFY(db->exec(QStringLiteral("INSERT INTO workloads VALUES (1, 'resnet18', 'then')"))
                        .ok());
        }
        auto store = Store::open(path);
        QVERIFY2(store.ok(), qPrintable(store.error()));
        ConvergenceStore convergence(**store);
        QVERIFY(!convergence.load(QStringLiteral("resnet18"))->has_value());
        QVERIFY(convergence.replace(relation(QStringLiteral("resnet18"), {{8, 1}, {16, 2}})).ok());
        QCOMPARE(convergence.all()->size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestConvergence)
#include "test_convergence.moc"
