// ptwb verify-concurrent on the simulated Jetson: the measured latency and training throughput
// follow the Fulcrum formulas computed from the simulator's own tT and tI at the mode.
#include "clirunner.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

namespace {

// tT, tI (ms) and pT, pI (W) from the simulator's performance model.
struct SimCost
{
    double trainMs = 0;
    double inferMs = 0;
    double trainW = 0;
    double inferW = 0;
};

SimCost simulatorCost(const QString &canonicalMode, int trainBatch, int inferBatch)
{
    const QStringList parts = canonicalMode.split(QLatin1Char('/'));
    const QString script =
        QStringLiteral("import sys; sys.path.insert(0, '%1/remote/simulator')\n"
                       "import perfmodel\n"
                       "m = perfmodel.PerfModel('orin-agx')\n"
                       "mode = perfmodel.Mode(%2, %3, %4, %5)\n"
                       "print(m.time_ms('resnet18', mode, %6), "
                       "m.inference_time_ms('mobilenet_v3', mode, %7), "
                       "m.power_w('resnet18', mode, %6), "
                       "m.inference_power_w('mobilenet_v3', mode, %7))\n")
            .arg(QStringLiteral(PTWB_SOURCE_DIR), parts[0], parts[1], parts[2], parts[3])
            .arg(trainBatch)
            .arg(inferBatch);
    const CliResult result =
        runProgram(QStringLiteral("python3"), {QStringLiteral("-c"), script}, 30000);
    const QStringList values = result.out.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (result.exitCode != 0 || values.size() != 4)
        return {};
    return {values[0].toDouble(), values[1].toDouble(), values[2].toDouble(), values[3].toDouble()};
}

}  // namespace

class TestVerifyConcurrent : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void measuredFollowsTheFormulas_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<double>("rate");
        QTest::addColumn<int>("batch");
        QTest::newRow("MAXN, 60/s, b=16")
            << QStringLiteral("12/2201600/1300500000/3199000000") << 60.0 << 16;
        QTest::newRow("8 cores, 930 MHz GPU, 40/s, b=12")
            << QStringLiteral("8/1497600/930750000/3199000000") << 40.0 << 12;
        QTest::newRow("4 cores, slow GPU, 20/s, b=8")
            << QStringLiteral("4/1497600/624750000/2133000000") << 20.0 << 8;
    }

    void measuredFollowsTheFormulas()
    {
        QFETCH(QString, mode);
        QFETCH(double, rate);
        QFETCH(int, batch);
        const SimCost sim = simulatorCost(mode, 16, batch);
        QVERIFY2(sim.trainMs > 0 && sim.inferMs > 0, "python3 could not evaluate the model");
        const CliResult result = runCli({QStringLiteral("verify-concurrent"),
                                         QStringLiteral("--target"),
                                         QStringLiteral("sim:orin-agx"),
                                         QStringLiteral("--sim-state"),
                                         m_dir.filePath(QStringLiteral("sim-%1").arg(++m_runs)),
                                         QStringLiteral("--sim-speed"),
                                         QStringLiteral("25"),
                                         QStringLiteral("--train"),
                                         QStringLiteral("resnet18"),
                                         QStringLiteral("--infer"),
                                         QStringLiteral("mobilenet_v3"),
                                         QStringLiteral("--arrival-rate"),
                                         QString::number(rate),
                                         QStringLiteral("--batch"),
                                         QString::number(batch),
                                         QStringLiteral("--mode"),
                                         mode,
                                         QStringLiteral("--duration"),
                                         QStringLiteral("60"),
                                         QStringLiteral("--json")},
                                        120000);
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        const QJsonObject object = QJsonDocument::fromJson(result.out.toUtf8()).object();
        const QJsonObject measured = object.value(QStringLiteral("measured")).toObject();
        const QJsonObject latency = measured.value(QStringLiteral("latency_ms")).toObject();

        const double cycle = batch / rate;
        const double tT = sim.trainMs / 1000;
        const double tI = sim.inferMs / 1000;
        const int n = int(std::floor((cycle - tI) / tT));
        const double throughput = n * rate / batch;
        const double trainPerS = measured.value(QStringLiteral("train_per_s")).toDouble();
        QVERIFY2(std::abs(trainPerS - throughput) <= 0.10 * throughput + 1e-9,
                 qPrintable(QStringLiteral("training %1/s, formula %2/s (n=%3)")
                                .arg(trainPerS)
                                .arg(throughput)
                                .arg(n)));
        QVERIFY(std::abs(measured.value(QStringLiteral("infer_per_s")).toDouble() - rate / batch) <=
                0.02 * rate / batch);
        QCOMPARE(measured.value(QStringLiteral("requests")).toInt(),
                 int(60 * rate) / batch * batch);
        // The worst request of an undisturbed batch waits (b-1)/λ for it to fill, then tI: the
        // formula's b/λ + tI is its bound. One training overrun at most on top.
        const double p99 = latency.value(QStringLiteral("p99")).toDouble() / 1000;
        QVERIFY2(
            p99 <= cycle + tI + tT,
            qPrintable(
                QStringLiteral("p99 %1 s > b/λ + tI + tT = %2 s").arg(p99).arg(cycle + tI + tT)));
        const double undisturbed = (batch - 1) / rate + tI;
        QVERIFY2(
            std::abs(p99 - undisturbed) <= 0.10 * undisturbed,
            qPrintable(QStringLiteral("p99 %1 s, (b-1)/λ + tI = %2 s").arg(p99).arg(undisturbed)));
        const double p50 = latency.value(QStringLiteral("p50")).toDouble() / 1000;
        QVERIFY(p50 <= p99);
        QVERIFY(std::abs(p50 - ((batch - 1) / 2.0 / rate + tI)) <= 0.10 * undisturbed);
        // The formula from the run's own measured times agrees with the model's.
        const QJsonObject formula =
            object.value(QStringLiteral("formula_measured_times")).toObject();
        QCOMPARE(formula.value(QStringLiteral("minibatches_per_cycle")).toInt(), n);
        // Power: between idle and the hungrier of the two.
        const double power = measured.value(QStringLiteral("power_median_w")).toDouble();
        QVERIFY2(power > 5 && power <= 1.05 * std::max(sim.trainW, sim.inferW),
                 qPrintable(QString::number(power)));
        QCOMPARE(object.value(QStringLiteral("kept")).toBool(), false);
        QCOMPARE(measured.value(QStringLiteral("mode")).toString(), mode);
        QVERIFY(result.err.contains(QStringLiteral("restoring")));
    }

    void predictionsFromTheStore()
    {
        const QString db = m_dir.filePath(QStringLiteral("store.db"));
        const QString data = QStringLiteral(PTWB_SHARED_DATA_DIR "/orin-agx/");
        for (const auto &[workload, file] :
             {std::pair {QStringLiteral("resnet18"), QStringLiteral("resnet18_imagenet_train.csv")},
              std::pair {QStringLiteral("mobilenet_v3"),
                         QStringLiteral("mobilenetv3_infer.csv")}}) {
            if (!QFile::exists(data + file))
                QSKIP("the public AGX Orin data is not in ../shared/data");
            const CliResult imported = runCli(
                {QStringLiteral("import"), QStringLiteral("--db"), db, QStringLiteral("--device"),
                 QStringLiteral("agx"), QStringLiteral("--kind"), QStringLiteral("orin-agx"),
                 QStringLiteral("--workload"), workload, data + file});
            QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        }
        // A mode both files measured.
        const QString mode = QStringLiteral("12/2201600/1300500000/3199000000");
        const CliResult result = runCli({QStringLiteral("verify-concurrent"),
                                         QStringLiteral("--target"),
                                         QStringLiteral("sim:orin-agx"),
                                         QStringLiteral("--sim-state"),
                                         m_dir.filePath(QStringLiteral("sim-p")),
                                         QStringLiteral("--sim-speed"),
                                         QStringLiteral("50"),
                                         QStringLiteral("--train"),
                                         QStringLiteral("resnet18"),
                                         QStringLiteral("--infer"),
                                         QStringLiteral("mobilenet_v3"),
                                         QStringLiteral("--arrival-rate"),
                                         QStringLiteral("60"),
                                         QStringLiteral("--batch"),
                                         QStringLiteral("16"),
                                         QStringLiteral("--mode"),
                                         mode,
                                         QStringLiteral("--duration"),
                                         QStringLiteral("20"),
                                         QStringLiteral("--db"),
                                         db,
                                         QStringLiteral("--latency-budget"),
                                         QStringLiteral("1.0"),
                                         QStringLiteral("--power-budget"),
                                         QStringLiteral("60")},
                                        120000);
        QVERIFY2(result.exitCode == 0, qPrintable(result.err + result.out));
        QVERIFY2(result.out.contains(QStringLiteral("predicted")), qPrintable(result.out));
        QVERIFY(result.out.contains(QStringLiteral("latency p99 (ms)")));
        QVERIFY2(result.out.contains(QStringLiteral("latency budget 1 s: met")) &&
                     result.out.contains(QStringLiteral("power budget 60 W: met")),
                 qPrintable(result.out));
        QVERIFY(result.out.contains(QStringLiteral("is back in 12c/2.20C/1.30G/3.20M")));
    }

    void badInputNamesTheOption_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("exitCode");
        const QStringList base {QStringLiteral("--train"), QStringLiteral("resnet18"),
                                QStringLiteral("--infer"), QStringLiteral("mobilenet_v3"),
                                QStringLiteral("--mode"),  QStringLiteral("12c/2.20C/1.30G/3.20M")};
        QTest::newRow("rate 0") << base +
                QStringList {QStringLiteral("--arrival-rate"), QStringLiteral("0"),
                             QStringLiteral("--batch"), QStringLiteral("16")}
                                << QStringLiteral("--arrival-rate:") << 2;
        QTest::newRow("rate too high") << base +
                QStringList {QStringLiteral("--arrival-rate"), QStringLiteral("20000"),
                             QStringLiteral("--batch"), QStringLiteral("16")}
                                       << QStringLiteral("--arrival-rate:") << 2;
        QTest::newRow("batch 0") << base +
                QStringList {QStringLiteral("--arrival-rate"), QStringLiteral("60"),
                             QStringLiteral("--batch"), QStringLiteral("0")}
                                 << QStringLiteral("--batch:") << 2;
        QTest::newRow("too long") << base +
                QStringList {QStringLiteral("--arrival-rate"), QStringLiteral("60"),
                             QStringLiteral("--batch"),        QStringLiteral("16"),
                             QStringLiteral("--duration"),     QStringLiteral("5000")}
                                  << QStringLiteral("--duration:") << 2;
        QTest::newRow("not one batch")
            << base + QStringList {QStringLiteral("--arrival-rate"), QStringLiteral("1"),
                                   QStringLiteral("--batch"),        QStringLiteral("16"),
                                   QStringLiteral("--duration"),     QStringLiteral("10")}
            << QStringLiteral("--duration:") << 2;
        QTest::newRow("bad mode")
            << QStringList {QStringLiteral("--train"),        QStringLiteral("resnet18"),
                            QStringLiteral("--infer"),        QStringLiteral("mobilenet_v3"),
                            QStringLiteral("--mode"),         QStringLiteral("fast"),
                            QStringLiteral("--arrival-rate"), QStringLiteral("60"),
                            QStringLiteral("--batch"),        QStringLiteral("16")}
            << QStringLiteral("--mode:") << 2;
        // The agent refuses a name outside its built-in set; the mode goes back.
        QTest::newRow("unknown workload") << QStringList {QStringLiteral("--train"),
                                                          QStringLiteral("vgg16"),
                                                          QStringLiteral("--infer"),
                                                          QStringLiteral("mobilenet_v3"),
                                                          QStringLiteral("--mode"),
                                                          QStringLiteral("8c/1.50C/0.93G/3.20M"),
                                                          QStringLiteral("--arrival-rate"),
                                                          QStringLiteral("60"),
                                                          QStringLiteral("--batch"),
                                                          QStringLiteral("16")}
                                          << QStringLiteral("train.name: 'vgg16' unknown") << 1;
    }

    void badInputNamesTheOption()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        QFETCH(int, exitCode);
        const CliResult result =
            runCli(QStringList {QStringLiteral("verify-concurrent"), QStringLiteral("--target"),
                                QStringLiteral("sim:orin-agx"), QStringLiteral("--sim-state"),
                                m_dir.filePath(QStringLiteral("sim-bad"))} +
                   arguments);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY2(result.err.contains(expected), qPrintable(result.err));
        if (exitCode == 1)
            QVERIFY2(result.err.contains(QStringLiteral("restoring")), qPrintable(result.err));
    }

private:
    QTemporaryDir m_dir;
    int m_runs = 0;
};

QTEST_GUILESS_MAIN(TestVerifyConcurrent)
#include "test_verifyconcurrent.moc"
