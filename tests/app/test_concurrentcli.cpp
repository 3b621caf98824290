#include "../concurrent/syntheticpair.h"
#include "clirunner.h"
#include "concurrent/concurrentstrategy.h"
#include "store/measurementcsv.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

namespace {

bool writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

// A small grid: 2 rates x 2 latencies x 3 power budgets.
QStringList smallGrid()
{
    return {QStringLiteral("--arrival-rates"),   QStringLiteral("30,90"),
            QStringLiteral("--latency-budgets"), QStringLiteral("0.5:1.5:1"),
            QStringLiteral("--power-budgets"),   QStringLiteral("15,25,40")};
}

}  // namespace

// ptwb evaluate-concurrent on a synthetic training + inference pair written as CSV files.
class TestConcurrentCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_train = m_dir.filePath(QStringLiteral("train.csv"));
        m_infer = m_dir.filePath(QStringLiteral("infer.csv"));
        QVERIFY(writeFile(m_train, ptwb::MeasurementCsv::write(syntheticTraining())));
        QVERIFY(writeFile(m_infer, ptwb::MeasurementCsv::write(syntheticInference())));
    }

    void evaluatesEveryProblemAndWritesThePicks()
    {
        const QString picks = m_dir.filePath(QStringLiteral("picks.csv"));
        const CliResult result = runCli(
            QStringList {QStringLiteral("evaluate-concurrent"), QStringLiteral("--train"), m_train,
                         QStringLiteral("--infer"), m_infer, QStringLiteral("--strategies"),
                         QStringLiteral("optimal,maxn,gmd,bs"), QStringLiteral("--repeats"),
                         QStringLiteral("2"), QStringLiteral("--picks"), picks,
                         QStringLiteral("--json")} +
            smallGrid());
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QHash<QString, QJsonObject> byStrategy;
        for (const QString &line : result.out.trimmed().split(QLatin1Char('\n'))) {
            const QJsonObject object = QJsonDocument::fromJson(line.toUtf8()).object();
            byStrategy.insert(object.value(QStringLiteral("strategy")).toString(), object);
        }
        QCOMPARE(byStrategy.size(), 4);
        const QJsonObject optimal = byStrategy.value(QStringLiteral("optimal"));
        QCOMPARE(optimal.value(QStringLiteral("throughput_shortfall_median")).toDouble(), 0.0);
        QCOMPARE(optimal.value(QStringLiteral("feasible_found")).toDouble(), 100.0);
        QCOMPARE(optimal.value(QStringLiteral("violations")).toDouble(), 0.0);
        QCOMPARE(optimal.value(QStringLiteral("profiled_per_problem")).toDouble(), 441.0 * 5);
        const QJsonObject gmd = byStrategy.value(QStringLiteral("gmd"));
        QVERIFY(gmd.value(QStringLiteral("profiled_per_problem")).toDouble() <= 25);
        QCOMPARE(gmd.value(QStringLiteral("violations")).toDouble(), 0.0);
        QVERIFY(byStrategy.value(QStringLiteral("maxn"))
                    .value(QStringLiteral("violations"))
                    .toDouble() > 0);  // 15 W is far below MAXN

        QFile file(picks);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines =
            QString::fromUtf8(file.readAll()).trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.first(),
                 QStringLiteral("strategy,repeat,arrival_rate,latency_budget_s,"
                                "power_budget_w,cores,cpu,gpu,mem,bs"));
        QCOMPARE(lines.size(), 1 + 4 * 2 * 12);
        bool sawAnswer = false;
        for (const QString &line : lines.mid(1)) {
            const QStringList fields = line.split(QLatin1Char(','));
            QCOMPARE(fields.size(), 10);
            if (fields[0] == QLatin1String("optimal") && fields[4] == QLatin1String("40")) {
                QVERIFY2(!fields[9].isEmpty(), qPrintable(line));  // 40 W is always solvable
                sawAnswer = true;
            }
        }
        QVERIFY(sawAnswer);
    }

    void badInputNamesTheOptionAndWritesNothing_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QString badBatch = m_dir.filePath(QStringLiteral("badbatch.csv"));
        QVERIFY(writeFile(badBatch,
                          "cores,cpu,gpu,mem,observed_time,bs,observed_power\n"
                          "12,2201600,1300500000,3199000000,20,16,30\n"
                          "12,2201600,1300500000,3199000000,20,1.5,30\n"));
        QTest::newRow("training file as inference")
            << QStringList {QStringLiteral("--train"), m_train, QStringLiteral("--infer"), m_train}
            << QStringLiteral("--infer: train.csv holds training measurements");
        QTest::newRow("inference file as training")
            << QStringList {QStringLiteral("--train"), m_infer, QStringLiteral("--infer"), m_infer}
            << QStringLiteral("--train: infer.csv holds inference measurements");
        QTest::newRow("bad batch size")
            << QStringList {QStringLiteral("--train"), m_train, QStringLiteral("--infer"), badBatch}
            << QStringLiteral("--infer: badbatch.csv:3: column 'bs'");
        QTest::newRow("bad rates")
            << QStringList {QStringLiteral("--train"),         m_train,
                            QStringLiteral("--infer"),         m_infer,
                            QStringLiteral("--arrival-rates"), QStringLiteral("fast")}
            << QStringLiteral("--arrival-rates: 'fast': expected");
        QTest::newRow("pt without reference")
            << QStringList {QStringLiteral("--train"),      m_train,
                            QStringLiteral("--infer"),      m_infer,
                            QStringLiteral("--strategies"), QStringLiteral("pt")}
            << QStringLiteral("--train-reference: pt and safe need");
    }

    void badInputNamesTheOptionAndWritesNothing()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const QString picks = m_dir.filePath(QStringLiteral("never.csv"));
        const CliResult result = runCli(
            QStringList {QStringLiteral("evaluate-concurrent"), QStringLiteral("--picks"), picks} +
            arguments);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(expected), qPrintable(result.err));
        QVERIFY(!QFile::exists(picks));
    }

    void recommendsTheBestMeasuredPair()
    {
        const QString db = m_dir.filePath(QStringLiteral("store.db"));
        for (const auto &[workload, file] : {std::pair {QStringLiteral("trainer"), m_train},
                                             std::pair {QStringLiteral("server"), m_infer}}) {
            const CliResult imported =
                runCli({QStringLiteral("import"), QStringLiteral("--db"), db,
                        QStringLiteral("--device"), QStringLiteral("agx"), QStringLiteral("--kind"),
                        QStringLiteral("orin-agx"), QStringLiteral("--workload"), workload, file});
            QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        }
        const ptwb::ConcurrentProblem problem {60, 1.0, 25};
        const CliResult result = runCli(
            {QStringLiteral("recommend-concurrent"), QStringLiteral("--db"), db,
             QStringLiteral("--train"), QStringLiteral("trainer"), QStringLiteral("--infer"),
             QStringLiteral("server"), QStringLiteral("--arrival-rate"), QStringLiteral("60"),
             QStringLiteral("--latency-budget"), QStringLiteral("1.0"),
             QStringLiteral("--power-budget"), QStringLiteral("25"), QStringLiteral("--json")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        const QJsonObject object = QJsonDocument::fromJson(result.out.toUtf8()).object();
        QVERIFY(object.value(QStringLiteral("feasible")).toBool());
        QCOMPARE(object.value(QStringLiteral("source")).toString(), QStringLiteral("measured"));

        // Every pair is measured: the answer is the brute-force optimum of the data.
        const ptwb::ConcurrentData data = syntheticPair();
        ptwb::ConcurrentOracle oracle(data);
        const int best = ptwb::OptimalConcurrentStrategy().choose(problem, oracle);
        QVERIFY(best >= 0);
        const ptwb::ConcurrentOutcome expected = ptwb::assess(problem, data.cost(best));
        QCOMPARE(object.value(QStringLiteral("batch")).toInt(), data.batchOf(best));
        QCOMPARE(object.value(QStringLiteral("minibatches_per_cycle")).toInt(),
                 expected.minibatchesPerCycle);
        QVERIFY(std::abs(object.value(QStringLiteral("throughput")).toDouble() -
                         expected.throughput) < 1e-9);
        QVERIFY(object.value(QStringLiteral("power_w")).toDouble() <= 25);
        QVERIFY(object.value(QStringLiteral("latency_s")).toDouble() <= 1.0);

        // The two workloads the wrong way round: the option that names the wrong one.
        const CliResult swapped =
            runCli({QStringLiteral("recommend-concurrent"), QStringLiteral("--db"), db,
                    QStringLiteral("--train"), QStringLiteral("server"), QStringLiteral("--infer"),
                    QStringLiteral("trainer"), QStringLiteral("--arrival-rate"),
                    QStringLiteral("60"), QStringLiteral("--latency-budget"), QStringLiteral("1"),
                    QStringLiteral("--power-budget"), QStringLiteral("25")});
        QCOMPARE(swapped.exitCode, 2);
        QVERIFY2(swapped.err.contains(QStringLiteral("--train: workload 'server'")),
                 qPrintable(swapped.err));
        const CliResult badRate =
            runCli({QStringLiteral("recommend-concurrent"), QStringLiteral("--db"), db,
                    QStringLiteral("--train"), QStringLiteral("trainer"), QStringLiteral("--infer"),
                    QStringLiteral("server"), QStringLiteral("--arrival-rate"),
                    QStringLiteral("-3"), QStringLiteral("--latency-budget"), QStringLiteral("1"),
                    QStringLiteral("--power-budget"), QStringLiteral("25")});
        QCOMPARE(badRate.exitCode, 2);
        QVERIFY2(badRate.err.contains(QStringLiteral("--arrival-rate: '-3'")),
                 qPrintable(badRate.err));
    }

private:
    QTemporaryDir m_dir;
    QString m_train;
    QString m_infer;
};

QTEST_GUILESS_MAIN(TestConcurrentCli)
#include "test_concurrentcli.moc"
