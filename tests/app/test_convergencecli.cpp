// ptwb convergence: a workload's samples to accuracy per batch size, from a file or the
// simulator's model, stored with its provenance; a bad file stores nothing.
#include "clirunner.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace {

const QByteArray kFile = "batch_size,samples_to_target,target_accuracy\n"
                         "32,1700000,0.93\n"
                         "8,1500000,0.93\n"
                         "16,1550000,0.93\n";

QJsonObject lastObject(const QString &out)
{
    const QStringList lines = out.trimmed().split(QLatin1Char('\n'));
    return QJsonDocument::fromJson(lines.value(lines.size() - 1).toUtf8()).object();
}

}  // namespace

class TestConvergenceCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_count = 0;

    QString fresh(const QString &name)
    {
        return m_dir.filePath(QStringLiteral("%1-%2").arg(++m_count).arg(name));
    }

    QString file(const QByteArray &data)
    {
        const QString path = fresh(QStringLiteral("samples.csv"));
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly) || out.write(data) != data.size())
            return {};
        return path;
    }

    static QStringList convergence(const QString &db, const QString &workload,
                                   const QStringList &extra)
    {
        return QStringList {QStringLiteral("convergence"), QStringLiteral("--db"), db,
                            QStringLiteral("--workload"), workload} +
            extra;
    }

private Q_SLOTS:
    void helpAndJson()
    {
        const CliResult help = runCli({QStringLiteral("convergence"), QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.startsWith(QStringLiteral("Usage: ptwb convergence [options]")) &&
                     help.out.contains(QStringLiteral("--json")) &&
                     help.out.contains(QStringLiteral("--dataset-samples")),
                 qPrintable(help.out));
        const CliResult overview = runCli({QStringLiteral("--help")});
        QVERIFY2(overview.out.contains(QStringLiteral("  convergence  ")),
                 qPrintable(overview.out));
    }

    void importsAndShows()
    {
        const QString db = fresh(QStringLiteral("c.sqlite"));
        const QString path = file(kFile);
        QVERIFY(!path.isEmpty());
        const CliResult imported =
            runCli(convergence(db, QStringLiteral("resnet18"), {QStringLiteral("--import"), path}));
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        QVERIFY2(imported.out.contains(QStringLiteral("provenance: user")),
                 qPrintable(imported.out));
        QVERIFY2(imported.out.contains(QStringLiteral("   16       1550000  1.033")),
                 qPrintable(imported.out));

        const CliResult shown =
            runCli(convergence(db, QStringLiteral("resnet18"), {QStringLiteral("--json")}));
        QVERIFY2(shown.exitCode == 0, qPrintable(shown.err));
        const QJsonObject object = lastObject(shown.out);
        QCOMPARE(object.value(QLatin1String("workload")).toString(), QStringLiteral("resnet18"));
        QCOMPARE(object.value(QLatin1String("provenance")).toString(), QStringLiteral("user"));
        QCOMPARE(object.value(QLatin1String("source")).toString(), QFileInfo(path).fileName());
        QCOMPARE(object.value(QLatin1String("target_accuracy")).toDouble(), 0.93);
        QCOMPARE(object.value(QLatin1String("stored")).toBool(), false);
        const QJsonArray points = object.value(QLatin1String("points")).toArray();
        QCOMPARE(points.size(), 3);
        const int batches[] = {8, 16, 32};
        const double samples[] = {1500000, 1550000, 1700000};
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(points[i].toObject().value(QLatin1String("batch_size")).toInt(), batches[i]);
            QCOMPARE(points[i].toObject().value(QLatin1String("samples")).toDouble(), samples[i]);
        }

        // epochs need the dataset's size, and become samples with it
        const QString epochs = file("batch_size,epochs_to_target\n8,30\n16,31\n");
        const CliResult noSize =
            runCli(convergence(db, QStringLiteral("bert"), {QStringLiteral("--import"), epochs}));
        QCOMPARE(noSize.exitCode, 2);
        QVERIFY2(noSize.err.startsWith(QStringLiteral("--dataset-samples: ")),
                 qPrintable(noSize.err));
        const CliResult withSize = runCli(
            convergence(db, QStringLiteral("bert"),
                        {QStringLiteral("--import"), epochs, QStringLiteral("--dataset-samples"),
                         QStringLiteral("50000"), QStringLiteral("--json")}));
        QVERIFY2(withSize.exitCode == 0, qPrintable(withSize.err));
        QCOMPARE(lastObject(withSize.out)
                     .value(QLatin1String("points"))
                     .toArray()[1]
                     .toObject()
                     .value(QLatin1String("samples"))
                     .toDouble(),
                 1550000.0);
    }

    // A bad file is refused with its file, line and column, and the relation stored before stays
    // exactly as it was.
    void badFileLeavesTheRelationUnchanged()
    {
        const QString db = fresh(QStringLiteral("c.sqlite"));
        QCOMPARE(runCli(convergence(db, QStringLiteral("resnet18"),
                                    {QStringLiteral("--import"), file(kFile)}))
                     .exitCode,
                 0);
        const CliResult before =
            runCli(convergence(db, QStringLiteral("resnet18"), {QStringLiteral("--json")}));
        QCOMPARE(before.exitCode, 0);

        const QString bad = file("batch_size,samples_to_target\n64,1\n128,2\n64,3\n");
        const CliResult refused =
            runCli(convergence(db, QStringLiteral("resnet18"), {QStringLiteral("--import"), bad}));
        QCOMPARE(refused.exitCode, 2);
        QCOMPARE(refused.err.trimmed(),
                 QStringLiteral("%1:4: column 'batch_size': 64 is on line 2 too; expected each "
                                "batch size once")
                     .arg(QFileInfo(bad).fileName()));

        const CliResult after =
            runCli(convergence(db, QStringLiteral("resnet18"), {QStringLiteral("--json")}));
        QCOMPARE(after.exitCode, 0);
        QCOMPARE(after.out, before.out);  // recorded_at included: not even re-written
    }

    void simulates()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed: the simulator's convergence model cannot run");
        const QString db = fresh(QStringLiteral("c.sqlite"));
        const CliResult simulated =
            runCli(convergence(db, QStringLiteral("resnet18"),
                               {QStringLiteral("--simulate"), QStringLiteral("--seed"),
                                QStringLiteral("1"), QStringLiteral("--json")}));
        QVERIFY2(simulated.exitCode == 0, qPrintable(simulated.err));
        const QJsonObject object = lastObject(simulated.out);
        QCOMPARE(object.value(QLatin1String("provenance")).toString(), QStringLiteral("simulated"));
        QVERIFY(
            object.value(QLatin1String("source")).toString().contains(QLatin1String("SIMULATED")));
        QCOMPARE(object.value(QLatin1String("stored")).toBool(), true);
        const QJsonArray points = object.value(QLatin1String("points")).toArray();
        QCOMPARE(points.size(), 5);  // the default batch sizes 8,16,32,64,128
        QCOMPARE(points[0].toObject().value(QLatin1String("batch_size")).toInt(), 8);
        // above the smallest batch a larger batch never needs fewer samples (seeded noise of
        // +-3 % aside, the model grows with the batch)
        for (int i = 1; i < points.size(); ++i) {
            QVERIFY2(points[i].toObject().value(QLatin1String("samples")).toDouble() >=
                         points[i - 1].toObject().value(QLatin1String("samples")).toDouble(),
                     qPrintable(simulated.out));
        }

        // the text output says it is simulated
        const CliResult shown = runCli(convergence(db, QStringLiteral("resnet18"), {}));
        QVERIFY2(shown.out.contains(QStringLiteral("provenance: simulated (SIMULATED")),
                 qPrintable(shown.out));

        // the model's refusal names the option
        const CliResult unknown = runCli(
            convergence(db, QStringLiteral("no-such-workload"), {QStringLiteral("--simulate")}));
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.startsWith(QStringLiteral("--workload: unknown workload "
                                                       "'no-such-workload'")),
                 qPrintable(unknown.err));
        const CliResult kind = runCli(convergence(
            db, QStringLiteral("resnet18"),
            {QStringLiteral("--simulate"), QStringLiteral("--kind"), QStringLiteral("tx2")}));
        QCOMPARE(kind.exitCode, 2);
        QVERIFY2(kind.err.startsWith(QStringLiteral("--kind: ")), qPrintable(kind.err));
        // and a refused simulation leaves the stored relation alone
        QCOMPARE(runCli(convergence(db, QStringLiteral("resnet18"), {})).out, shown.out);
    }

    // --proxy on the simulated Jetson: its proxy_train.py trains each batch size to the target
    // (SIMULATED); the relation is stored with provenance proxy.
    void proxyRunStoresAProxyRelation()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        const QString db = fresh(QStringLiteral("c.sqlite"));
        const CliResult r = runCli(convergence(
            db, QStringLiteral("resnet18"),
            {QStringLiteral("--proxy"), QStringLiteral("--command"),
             QStringLiteral("python3 proxy_train.py --model resnet18"),
             QStringLiteral("--target-accuracy"), QStringLiteral("0.6"),
             QStringLiteral("--base-lr"), QStringLiteral("0.1"), QStringLiteral("--base-batch"),
             QStringLiteral("256"), QStringLiteral("--batch-sizes"), QStringLiteral("16,64"),
             QStringLiteral("--sim-speed"), QStringLiteral("5000"), QStringLiteral("--sim-state"),
             fresh(QStringLiteral("sim")), QStringLiteral("--json")}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);  // one object per batch size, then the relation
        const QJsonObject first = QJsonDocument::fromJson(lines[0].toUtf8()).object();
        QCOMPARE(first.value(QLatin1String("status")).toString(), QStringLiteral("reached"));
        QCOMPARE(first.value(QLatin1String("learning_rate")).toDouble(), 0.00625);
        const QJsonObject relation = lastObject(r.out);
        QCOMPARE(relation.value(QLatin1String("provenance")).toString(), QStringLiteral("proxy"));
        QCOMPARE(relation.value(QLatin1String("stored")).toBool(), true);
        QCOMPARE(relation.value(QLatin1String("target_accuracy")).toDouble(), 0.6);
        QCOMPARE(relation.value(QLatin1String("points")).toArray().size(), 2);
        QVERIFY2(
            relation.value(QLatin1String("source"))
                .toString()
                .startsWith(QStringLiteral("proxy run on sim:orin-agx: python3 proxy_train.py")),
            qPrintable(relation.value(QLatin1String("source")).toString()));
        const CliResult shown = runCli(convergence(db, QStringLiteral("resnet18"), {}));
        QVERIFY2(shown.out.contains(QStringLiteral("provenance: proxy (measured by short proxy "
                                                   "training runs)")),
                 qPrintable(shown.out));
    }

    // Batch sizes that do not reach the target are reported with their reason; with fewer
    // than two that did, nothing is stored and the command fails.
    void proxyRunShortOfTheTargetStoresNothing()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        const QString db = fresh(QStringLiteral("c.sqlite"));
        const CliResult r = runCli(convergence(
            db, QStringLiteral("resnet18"),
            {QStringLiteral("--proxy"), QStringLiteral("--command"),
             QStringLiteral("python3 proxy_train.py --model resnet18 --max-epochs 2"),
             QStringLiteral("--target-accuracy"), QStringLiteral("0.6"),
             QStringLiteral("--base-lr"), QStringLiteral("0.1"), QStringLiteral("--base-batch"),
             QStringLiteral("256"), QStringLiteral("--batch-sizes"), QStringLiteral("16,1024"),
             QStringLiteral("--sim-speed"), QStringLiteral("5000"), QStringLiteral("--sim-state"),
             fresh(QStringLiteral("sim"))}));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("batch 16 (lr 0.00625): did not reach the target: "
                                               "did not reach accuracy 0.6")) &&
                     r.err.contains(QStringLiteral("batch 1024 (lr 0.4): failed")) &&
                     r.err.contains(QStringLiteral("out of memory")) &&
                     r.err.contains(QStringLiteral("0 of 2 batch sizes reached accuracy 0.6; a "
                                                   "relation needs at least 2, nothing was "
                                                   "stored")),
                 qPrintable(r.err));
        const CliResult none = runCli(convergence(db, QStringLiteral("resnet18"), {}));
        QCOMPARE(none.exitCode, 2);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("error");
        QTest::newRow("two ways in")
            << QStringList {"--simulate", "--show"}
            << "convergence: --import, --simulate, --proxy and --show are alternatives; give one";
        QTest::newRow("seed without simulate")
            << QStringList {"--seed", "3"} << "--seed: only with --simulate";
        QTest::newRow("dataset size without import")
            << QStringList {"--dataset-samples", "3"} << "--dataset-samples: only with --import";
        QTest::newRow("one batch size")
            << QStringList {"--simulate", "--batch-sizes", "8"}
            << "--batch-sizes: 1 batch size(s); expected at least 2 to relate (a list such as "
               "8,16,32,64,128)";
        QTest::newRow("proxy option without proxy")
            << QStringList {"--simulate", "--command", "python3 t.py"}
            << "--command: only with --proxy";
        QTest::newRow("proxy without its command")
            << QStringList {"--proxy", "--target-accuracy", "0.9", "--base-lr",
                            "0.1",     "--base-batch",      "32"}
            << "--command: required with --proxy";
        QTest::newRow("proxy accuracy in percent")
            << QStringList {"--proxy", "--command", "python3 t.py", "--target-accuracy",
                            "90",      "--base-lr", "0.1",          "--base-batch",
                            "32"}
            << "--target-accuracy: '90' is not an accuracy; expected a fraction in (0, 1], e.g. "
               "0.9 (not a percent)";
        QTest::newRow("proxy base batch")
            << QStringList {"--proxy", "--command", "python3 t.py", "--target-accuracy",
                            "0.9",     "--base-lr", "0.1",          "--base-batch",
                            "0"}
            << "--base-batch: expected a batch size 1 to 4096";
        QTest::newRow("bad batch size")
            << QStringList {"--simulate", "--batch-sizes", "8,x"}
            << "--batch-sizes: 'x': expected a minibatch size of 1 to 4096 (a list such as "
               "1,4,16,32,64)";
    }

    void usageErrors()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, error);
        const QString db = fresh(QStringLiteral("c.sqlite"));
        const CliResult result = runCli(convergence(db, QStringLiteral("resnet18"), extra));
        QCOMPARE(result.exitCode, 2);
        QCOMPARE(result.err.trimmed(), error);
        const CliResult none = runCli(convergence(db, QStringLiteral("resnet18"), {}));
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.startsWith(QStringLiteral("--workload: no samples-to-accuracy relation "
                                                    "of workload 'resnet18'")),
                 qPrintable(none.err));
    }
};

QTEST_GUILESS_MAIN(TestConvergenceCli)
#include "test_convergencecli.moc"
