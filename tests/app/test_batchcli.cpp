// Batch size as a knob, end to end on the simulated Jetson: a sweep at two batch sizes, the
// simulator's samples to accuracy, then `ptwb recommend --objective time-to-accuracy` and
// `ptwb evaluate-batch` (= `ptwb evaluate --objective time-to-accuracy`) on what was stored.
#include "clirunner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>

class TestBatchCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        m_db = m_dir.filePath(QStringLiteral("b.sqlite"));
        const CliResult sweep = runCli(
            {QStringLiteral("sweep"), QStringLiteral("--db"), m_db, QStringLiteral("--target"),
             QStringLiteral("sim:orin-agx"), QStringLiteral("--workload"),
             QStringLiteral("resnet18"), QStringLiteral("--modes"), QStringLiteral("random:10"),
             QStringLiteral("--batch-sizes"), QStringLiteral("8,32"),
             QStringLiteral("--minibatches"), QStringLiteral("30"), QStringLiteral("--sim-speed"),
             QStringLiteral("400"), QStringLiteral("--sim-state"),
             m_dir.filePath(QStringLiteral("sim"))},
            180000);
        QVERIFY2(sweep.exitCode == 0, qPrintable(sweep.err));
    }

    void refusedWithoutSamplesToAccuracy()
    {
        const CliResult r =
            runCli({QStringLiteral("recommend"), QStringLiteral("--db"), m_db,
                    QStringLiteral("--workload"), QStringLiteral("resnet18"),
                    QStringLiteral("--power-budget"), QStringLiteral("40"),
                    QStringLiteral("--objective"), QStringLiteral("time-to-accuracy")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("workload 'resnet18' has no samples-to-accuracy "
                                              "relation; store one with ptwb convergence")),
                 qPrintable(r.err));
        const CliResult timeBudget =
            runCli({QStringLiteral("recommend"), QStringLiteral("--db"), m_db,
                    QStringLiteral("--workload"), QStringLiteral("resnet18"),
                    QStringLiteral("--time-budget"), QStringLiteral("100"),
                    QStringLiteral("--objective"), QStringLiteral("energy-to-accuracy")});
        QCOMPARE(timeBudget.exitCode, 2);
        QVERIFY2(timeBudget.err.contains(QLatin1String("give --power-budget W")),
                 qPrintable(timeBudget.err));
    }

    // The pick is the best of the per-batch bests, within the cap on the peak, and its time
    // to accuracy is minibatches x time.
    void recommendsABatchAndAMode()
    {
        const CliResult simulated = runCli(
            {QStringLiteral("convergence"), QStringLiteral("--db"), m_db,
             QStringLiteral("--workload"), QStringLiteral("resnet18"), QStringLiteral("--simulate"),
             QStringLiteral("--batch-sizes"), QStringLiteral("8,16,32,64")});
        QVERIFY2(simulated.exitCode == 0, qPrintable(simulated.err));
        for (const QString &objective :
             {QStringLiteral("time-to-accuracy"), QStringLiteral("energy-to-accuracy")}) {
            const CliResult r =
                runCli({QStringLiteral("recommend"), QStringLiteral("--db"), m_db,
                        QStringLiteral("--workload"), QStringLiteral("resnet18"),
                        QStringLiteral("--power-budget"), QStringLiteral("45"),
                        QStringLiteral("--objective"), objective, QStringLiteral("--observed-only"),
                        QStringLiteral("--json")});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const QJsonObject answer = QJsonDocument::fromJson(r.out.toUtf8()).object();
            QCOMPARE(answer.value(QLatin1String("convergence_provenance")).toString(),
                     QStringLiteral("simulated"));
            const QJsonArray perBatch = answer.value(QLatin1String("per_batch")).toArray();
            QVERIFY(!perBatch.isEmpty() && perBatch.size() <= 2);
            const QString key = objective.startsWith(QLatin1String("time"))
                ? QStringLiteral("seconds")
                : QStringLiteral("joules");
            double best = 1e300;
            for (const QJsonValue &v : perBatch) {
                const QJsonObject b = v.toObject();
                QVERIFY(b.value(QLatin1String("peak_w")).toDouble() <= 45);
                QVERIFY(b.value(QLatin1String("peak_w")).toDouble() >=
                        b.value(QLatin1String("power_w")).toDouble());
                QCOMPARE(b.value(QLatin1String("seconds")).toDouble(),
                         b.value(QLatin1String("minibatches")).toDouble() *
                             b.value(QLatin1String("time_ms")).toDouble() / 1000);
                best = std::min(best, b.value(key).toDouble());
            }
            const QJsonObject pick = answer.value(QLatin1String("pick")).toObject();
            QCOMPARE(pick.value(key).toDouble(), best);
            QVERIFY(pick.value(QLatin1String("peak_w")).toDouble() <= 45);
        }
        // nothing fits a cap below every mode's peak
        const CliResult none = runCli(
            {QStringLiteral("recommend"), QStringLiteral("--db"), m_db,
             QStringLiteral("--workload"), QStringLiteral("resnet18"),
             QStringLiteral("--power-budget"), QStringLiteral("1"), QStringLiteral("--objective"),
             QStringLiteral("time-to-accuracy"), QStringLiteral("--observed-only")});
        QCOMPARE(none.exitCode, 0);
        QVERIFY2(none.out.contains(QLatin1String("stays under 1 W of peak power")),
                 qPrintable(none.out));
    }

    // Prediction across batch sizes is a transfer per batch view: a reference model of
    // resnet18@8, transferred to the modes profiled at batch 32, is a model of resnet18@32 that
    // the choice then uses for every mode of the device.
    void transfersToAnotherBatchSize()
    {
        const CliResult reference = runCli({QStringLiteral("train"), QStringLiteral("--db"), m_db,
                                            QStringLiteral("--workload"),
                                            QStringLiteral("resnet18@8"), QStringLiteral("--json")},
                                           180000);
        QVERIFY2(reference.exitCode == 0, qPrintable(reference.err));
        const CliResult transfer =
            runCli({QStringLiteral("transfer"), QStringLiteral("--db"), m_db,
                    QStringLiteral("--from"), QStringLiteral("resnet18@8"), QStringLiteral("--to"),
                    QStringLiteral("resnet18@32"), QStringLiteral("--json")},
                   180000);
        QVERIFY2(transfer.exitCode == 0, qPrintable(transfer.err));
        const QJsonObject model = QJsonDocument::fromJson(transfer.out.toUtf8()).object();
        QCOMPARE(model.value(QLatin1String("workload")).toString(), QStringLiteral("resnet18@32"));
        const CliResult r = runCli({QStringLiteral("recommend"), QStringLiteral("--db"), m_db,
                                    QStringLiteral("--workload"), QStringLiteral("resnet18"),
                                    QStringLiteral("--power-budget"), QStringLiteral("45"),
                                    QStringLiteral("--objective"),
                                    QStringLiteral("time-to-accuracy"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray sources = QJsonDocument::fromJson(r.out.toUtf8())
                                       .object()
                                       .value(QLatin1String("sources"))
                                       .toArray();
        QCOMPARE(sources.size(), 2);
        // batch 32 is predicted for every mode by its model; batch 8's newest model is the
        // reference trained on it
        QVERIFY2(sources[1].toString().startsWith(QLatin1String("batch 32: model ")),
                 qPrintable(sources[1].toString()));
        QVERIFY2(sources[1].toString().contains(QLatin1String("(pt) + 10 measured modes")),
                 qPrintable(sources[1].toString()));
    }

    // The baselines and the oracle on the stored truth (the sweep's modes, each batch).
    void evaluatesTheBaselines()
    {
        const CliResult r =
            runCli({QStringLiteral("evaluate-batch"), QStringLiteral("--db"), m_db,
                    QStringLiteral("--workload"), QStringLiteral("resnet18"),
                    QStringLiteral("--power-budgets"), QStringLiteral("30,45"),
                    QStringLiteral("--strategies"), QStringLiteral("oracle,largest,proxy,observed"),
                    QStringLiteral("--samples"), QStringLiteral("5"), QStringLiteral("--repeats"),
                    QStringLiteral("2"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 4);
        for (const QString &line : lines) {
            const QJsonObject o = QJsonDocument::fromJson(line.toUtf8()).object();
            QVERIFY(o.value(QLatin1String("penalty_median")).toDouble() >= 0);
            if (o.value(QLatin1String("strategy")).toString() == QLatin1String("oracle"))
                QCOMPARE(o.value(QLatin1String("penalty_median")).toDouble(), 0.0);
            if (o.value(QLatin1String("strategy")).toString() == QLatin1String("observed"))
                QCOMPARE(o.value(QLatin1String("violations")).toDouble(), 0.0);
        }
        const CliResult noReference =
            runCli({QStringLiteral("evaluate-batch"), QStringLiteral("--db"), m_db,
                    QStringLiteral("--workload"), QStringLiteral("resnet18"),
                    QStringLiteral("--power-budgets"), QStringLiteral("30")});
        QCOMPARE(noReference.exitCode, 2);
        QVERIFY2(noReference.err.contains(QLatin1String("--reference-workload")),
                 qPrintable(noReference.err));
    }

    // `ptwb evaluate --objective time-to-accuracy` is the same evaluation: the same figures for
    // the same seed, with evaluate's --budgets naming the caps.
    void evaluateWithAnAccuracyObjectiveIsTheBatchEvaluation()
    {
        const QStringList common {
            QStringLiteral("--db"),         m_db,
            QStringLiteral("--workload"),   QStringLiteral("resnet18"),
            QStringLiteral("--strategies"), QStringLiteral("oracle,largest,observed"),
            QStringLiteral("--samples"),    QStringLiteral("5"),
            QStringLiteral("--repeats"),    QStringLiteral("2"),
            QStringLiteral("--json")};
        const CliResult alias =
            runCli(QStringList {QStringLiteral("evaluate-batch"), QStringLiteral("--objective"),
                                QStringLiteral("energy"), QStringLiteral("--power-budgets"),
                                QStringLiteral("30,45")} +
                   common);
        QVERIFY2(alias.exitCode == 0, qPrintable(alias.err));
        const CliResult evaluate =
            runCli(QStringList {QStringLiteral("evaluate"), QStringLiteral("--objective"),
                                QStringLiteral("energy-to-accuracy"), QStringLiteral("--budgets"),
                                QStringLiteral("30,45")} +
                   common);
        QVERIFY2(evaluate.exitCode == 0, qPrintable(evaluate.err));
        const auto withoutSeconds = [](const QString &out) {
            QStringList lines = out.trimmed().split(QLatin1Char('\n'));
            for (QString &line : lines) {
                QJsonObject o = QJsonDocument::fromJson(line.toUtf8()).object();
                o.remove(QStringLiteral("seconds"));
                line = QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
            }
            return lines;
        };
        QCOMPARE(withoutSeconds(evaluate.out), withoutSeconds(alias.out));
        QCOMPARE(withoutSeconds(evaluate.out).size(), 3);
        QVERIFY(evaluate.out.contains(QLatin1String("\"objective\":\"energy\"")));

        const CliResult wrong =
            runCli(QStringList {QStringLiteral("evaluate"), QStringLiteral("--objective"),
                                QStringLiteral("speed")} +
                   common);
        QCOMPARE(wrong.exitCode, 2);
        QVERIFY2(wrong.err.contains(QLatin1String("--objective: expected time-to-accuracy")),
                 qPrintable(wrong.err));
        const CliResult noCaps =
            runCli({QStringLiteral("evaluate"), QStringLiteral("--objective"),
                    QStringLiteral("time-to-accuracy"), QStringLiteral("--db"), m_db,
                    QStringLiteral("--workload"), QStringLiteral("resnet18")});
        QCOMPARE(noCaps.exitCode, 2);
        QVERIFY2(noCaps.err.contains(QLatin1String("--power-budgets")), qPrintable(noCaps.err));
    }
};

QTEST_MAIN(TestBatchCli)
#include "test_batchcli.moc"
