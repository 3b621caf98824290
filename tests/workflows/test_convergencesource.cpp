// Where a samples-to-accuracy relation comes from: a user's file, or the simulator's convergence
// model run as a real python3 child process.
#include "convergencesource.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

Q_DECLARE_METATYPE(ptwb::InputField)

using namespace ptwb;

class TestConvergenceSource : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &data)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size())
            return {};
        return path;
    }

private Q_SLOTS:
    void importsAFileAsTheUsers()
    {
        const QString path = write(QStringLiteral("mine.csv"),
                                   "batch_size,epochs_to_target,target_accuracy\n64,31,0.7\n"
                                   "16,30,0.7\n");
        const auto relation = workflows::importedConvergence(path, QStringLiteral("mytrain"), 1000);
        QVERIFY2(relation.ok(), qPrintable(relation.error()));
        QCOMPARE(relation->workload, QStringLiteral("mytrain"));
        QCOMPARE(relation->provenance, QStringLiteral("user"));
        QCOMPARE(relation->source, QStringLiteral("mine.csv"));
        QCOMPARE(relation->targetAccuracy, std::optional<double>(0.7));
        QCOMPARE(relation->points.size(), 2);
        QCOMPARE(relation->points[0].batchSize, 16);
        QCOMPARE(relation->points[0].samples, 30000.0);
        QVERIFY(relation->problem().isEmpty());
    }

    void refusesWhatIsNotAFile()
    {
        const auto missing = workflows::importedConvergence(
            m_dir.filePath(QStringLiteral("none.csv")), QStringLiteral("w"), std::nullopt);
        QVERIFY(!missing.ok());
        QCOMPARE(missing.errorKind(), ErrorKind::BadInput);
        QVERIFY2(missing.error().contains(QLatin1String("none.csv: cannot read")),
                 qPrintable(missing.error()));

        QByteArray huge = "batch_size,samples_to_target\n";
        huge.append(QByteArray(2 << 20, '\n'));
        const auto tooLarge = workflows::importedConvergence(
            write(QStringLiteral("huge.csv"), huge), QStringLiteral("w"), std::nullopt);
        QVERIFY(!tooLarge.ok());
        QCOMPARE(tooLarge.errorKind(), ErrorKind::BadInput);
        QVERIFY2(tooLarge.error().startsWith(QLatin1String("huge.csv: 2097181 bytes; expected")),
                 qPrintable(tooLarge.error()));

        const auto noWorkload = workflows::importedConvergence(
            write(QStringLiteral("ok.csv"), "batch_size,samples_to_target\n8,1\n16,2\n"), QString(),
            std::nullopt);
        QCOMPARE(noWorkload.field(), InputField::Workload);
    }

    void runsTheSimulatorsModel()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed: the simulator's convergence model cannot run");
        const auto relation = workflows::simulatedConvergence(
            QStringLiteral("resnet18"), {128, 8, 32}, QStringLiteral("orin-agx"), 1);
        QVERIFY2(relation.ok(), qPrintable(relation.error()));
        QCOMPARE(relation->provenance, QStringLiteral("simulated"));
        QCOMPARE(relation->source, QStringLiteral("simulator convergence model (SIMULATED)"));
        QCOMPARE(relation->targetAccuracy, std::optional<double>(0.6));  // profiles.json
        QCOMPARE(relation->points.size(), 3);
        QCOMPARE(relation->points[0].batchSize, 8);
        QCOMPARE(relation->points[2].batchSize, 128);
        QVERIFY(relation->problem().isEmpty());
        // the same seed gives the same relation
        const auto again = workflows::simulatedConvergence(QStringLiteral("resnet18"), {8, 32, 128},
                                                           QStringLiteral("orin-agx"), 1);
        QVERIFY(again.ok());
        QCOMPARE(again->points, relation->points);
    }

    // A model that misbehaves (here a stand-in script found through PTWB_REMOTE_DIR) is a
    // failure, not bad input, and one that writes without end is stopped at 1 MiB.
    void misbehavingModelFails_data()
    {
        QTest::addColumn<QByteArray>("script");
        QTest::addColumn<QString>("error");
        QTest::newRow("endless output")
            << QByteArray("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n")
            << "the simulator's convergence model wrote more than 1048576 bytes; it was stopped";
        QTest::newRow("exit 1") << QByteArray("import sys\nsys.stderr.write('boom\\n')\n"
                                              "sys.exit(1)\n")
                                << "the simulator's convergence model failed (exit status 1): "
                                   "boom";
        QTest::newRow("not its CSV")
            << QByteArray("print('batch_size,samples_to_target')\nprint('8,1')\n")
            << "convergence.py output:2: only one batch size; expected at least 2 rows to "
               "relate batch size and samples";
    }

    void misbehavingModelFails()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed");
        QFETCH(QByteArray, script);
        QFETCH(QString, error);
        QTemporaryDir remote;
        QVERIFY(QDir(remote.path()).mkpath(QStringLiteral("simulator")));
        QFile marker(remote.filePath(QStringLiteral("simulator/ptwb_simjetson.py")));
        QVERIFY(marker.open(QIODevice::WriteOnly));
        marker.close();
        QFile model(remote.filePath(QStringLiteral("simulator/convergence.py")));
        QVERIFY(model.open(QIODevice::WriteOnly) && model.write(script) == script.size());
        model.close();
        const QByteArray before = qgetenv("PTWB_REMOTE_DIR");
        qputenv("PTWB_REMOTE_DIR", remote.path().toUtf8());
        const auto failed = workflows::simulatedConvergence(QStringLiteral("resnet18"), {8, 16},
                                                            QStringLiteral("orin-agx"), 0);
        if (before.isEmpty())
            qunsetenv("PTWB_REMOTE_DIR");
        else
            qputenv("PTWB_REMOTE_DIR", before);
        QVERIFY(!failed.ok());
        QCOMPARE(failed.errorKind(), ErrorKind::Failed);
        QCOMPARE(failed.error(), error);
    }

    void simulatorRefusalsNameTheirField_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QVector<int>>("batches");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<InputField>("field");
        QTest::addColumn<QString>("start");
        QTest::newRow("workload") << "no-such" << QVector<int> {8, 16} << "orin-agx"
                                  << InputField::Workload << "unknown workload 'no-such'";
        QTest::newRow("kind") << "resnet18" << QVector<int> {8, 16} << "tx2"
                              << InputField::DeviceKind << "unknown device 'tx2'";
        QTest::newRow("batch") << "resnet18" << QVector<int> {8, 5000} << "orin-agx"
                               << InputField::BatchSizes << "5000 is out of range";
        QTest::newRow("one batch") << "resnet18" << QVector<int> {8} << "orin-agx"
                                   << InputField::BatchSizes << "1 batch size(s)";
    }

    void simulatorRefusalsNameTheirField()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed: the simulator's convergence model cannot run");
        QFETCH(QString, workload);
        QFETCH(QVector<int>, batches);
        QFETCH(QString, kind);
        QFETCH(InputField, field);
        QFETCH(QString, start);
        const auto refused = workflows::simulatedConvergence(workload, batches, kind, 0);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.errorKind(), ErrorKind::BadInput);
        QCOMPARE(refused.field(), field);
        QVERIFY2(refused.error().startsWith(start), qPrintable(refused.error()));
    }
};

QTEST_GUILESS_MAIN(TestConvergenceSource)
#include "test_convergencesource.moc"
