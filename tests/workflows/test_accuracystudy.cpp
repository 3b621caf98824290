#include "accuracystudy.h"
#include "predict/studyconfigs.h"
#include "predict/syntheticstore.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

namespace {

AccuracyBenchOptions smallOptions()
{
    AccuracyBenchOptions options;
    options.samples = {10, 20};
    options.repeats = 2;
    options.seed = 3;
    options.configOverrides = studyConfigs();
    return options;
}

TrainingData storedData(const QString &path, const QString &workload)
{
    auto store = Store::open(path);
    if (!store)
        return {};
    const auto rows = (*store)->measurements(QStringLiteral("orin-agx"), workload);
    if (!rows)
        return {};
    const Expected<TrainingData> data = TrainingData::fromMeasurements(*rows, workload);
    return data ? *data : TrainingData();
}

}  // namespace

class TestAccuracyStudy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void storedPairGivesTheBenchRows()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        const AccuracyBenchOptions options = smallOptions();

        QVector<AccuracyRow> reported;
        int lastDone = 0;
        int lastTotal = 0;
        workflows::AccuracyStudyCallbacks callbacks;
        callbacks.row = [&reported](const AccuracyRow &row) { reported.append(row); };
        callbacks.progress = [&](int done, int total) {
            QVERIFY(done > lastDone);
            lastDone = done;
            lastTotal = total;
        };
        const Expected<QVector<AccuracyRow>> rows =
            workflows::runAccuracyStudy({path, QStringLiteral("resnet"), QString(),
                                         QStringLiteral("mobilenet"), QString(), options},
                                        callbacks);
        QVERIFY2(rows.ok(), qPrintable(rows.error()));
        // 2 sample sizes x 2 configurations x 2 methods, each reported as it completed.
        QCOMPARE(rows->size(), 8);
        QCOMPARE(reported.size(), 8);
        // 2 reference models, then 8 rows x 2 repeats.
        QCOMPARE(lastTotal, 18);
        QCOMPARE(lastDone, 18);

        AccuracyBench direct(storedData(path, QStringLiteral("resnet")),
                             storedData(path, QStringLiteral("mobilenet")),
                             QStringLiteral("orin-agx"), options);
        const Expected<QVector<AccuracyRow>> expected = direct.run({}, {});
        QVERIFY2(expected.ok(), qPrintable(expected.error()));
        QCOMPARE(expected->size(), rows->size());
        for (int i = 0; i < rows->size(); ++i) {
            const AccuracyRow &a = rows->at(i);
            const AccuracyRow &b = expected->at(i);
            QCOMPARE(a.method, b.method);
            QCOMPARE(a.config, b.config);
            QCOMPARE(a.samples, b.samples);
            QCOMPARE(a.repeats, b.repeats);
            QCOMPARE(reported[i].method, a.method);
            for (const auto &[x, y] :
                 {std::pair {a.timeMape, b.timeMape}, std::pair {a.powerMape, b.powerMape}}) {
                QVERIFY(x.median > 0);
                QCOMPARE(x.median, y.median);
                QCOMPARE(x.q1, y.q1);
                QCOMPARE(x.q3, y.q3);
            }
        }
    }

    void errorsNameTheField()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        const AccuracyBenchOptions options = smallOptions();
        const auto run = [&](const QString &reference, const QString &target,
                             const AccuracyBenchOptions &o) {
            return workflows::runAccuracyStudy({path, reference, QString(), target, QString(), o});
        };
        const auto noReference =
            run(QStringLiteral("nothing"), QStringLiteral("mobilenet"), options);
        QVERIFY(!noReference);
        QCOMPARE(noReference.field(), InputField::Reference);
        QVERIFY2(noReference.error().contains(QStringLiteral("nothing")),
                 qPrintable(noReference.error()));
        const auto noTarget = run(QStringLiteral("resnet"), QString(), options);
        QVERIFY(!noTarget);
        QCOMPARE(noTarget.field(), InputField::Workload);

        AccuracyBenchOptions tooMany = options;
        tooMany.samples = {10, 60};  // the target has 60 modes: none would be left to validate
        const auto samples = run(QStringLiteral("resnet"), QStringLiteral("mobilenet"), tooMany);
        QVERIFY(!samples);
        QCOMPARE(samples.field(), InputField::Samples);
        QVERIFY2(samples.error().contains(QStringLiteral("between 1 and 59")),
                 qPrintable(samples.error()));
    }

    void acrossDevicesAndCancel()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 60);
        QVERIFY(!path.isEmpty());
        {
            auto store = Store::open(path);
            QVERIFY(store);
            QVERIFY(addSyntheticWorkloadOn(**store, QStringLiteral("orin-nano"),
                                           QStringLiteral("nano"), 60, 4));
        }
        AccuracyBenchOptions options = smallOptions();
        options.samples = {10};
        options.repeats = 1;
        options.methods = {QStringLiteral("pt")};
        options.configs = {QStringLiteral("default")};
        QStringList log;
        workflows::AccuracyStudyCallbacks callbacks;
        callbacks.log = [&log](const QString &line) { log.append(line); };
        const auto across = workflows::runAccuracyStudy(
            {path, QStringLiteral("resnet"), QString(), QStringLiteral("nano"), QString(), options},
            callbacks);
        QVERIFY2(across.ok(), qPrintable(across.error()));
        QCOMPARE(across->size(), 1);
        QVERIFY2(log.first().contains(
                     QStringLiteral("reference measured on orin-agx, target on orin-nano")),
                 qPrintable(log.join('\n')));

        // Cancelled after the first row: it fails, and no row is reported after that.
        options.samples = {10, 20};
        bool cancel = false;
        int reported = 0;
        callbacks.row = [&](const AccuracyRow &) {
            ++reported;
            cancel = true;
        };
        callbacks.cancelled = [&cancel] { return cancel; };
        const auto cancelled =
            workflows::runAccuracyStudy({path, QStringLiteral("resnet"), QString(),
                                         QStringLiteral("mobilenet"), QString(), options},
                                        callbacks);
        QVERIFY(!cancelled);
        QVERIFY2(cancelled.error().contains(QStringLiteral("cancelled")),
                 qPrintable(cancelled.error()));
        QCOMPARE(reported, 1);
    }

    void csvHasTheJsonKeys()
    {
        AccuracyRow row;
        row.method = QStringLiteral("pt-baseline");
        row.config = QStringLiteral("baseline");
        row.samples = 20;
        row.repeats = 10;
        row.timeMape = {1.5, 1.25, 2.0};
        row.powerMape = {3.0, 2.5, 3.5};
        row.seconds = 0.125;
        const QJsonObject json = workflows::accuracyRowJson(row);
        QCOMPARE(json.keys().size(), 7);
        QCOMPARE(json.value("time_mape").toObject().value("median").toDouble(),
                 row.timeMape.median);
        const QByteArray csv = workflows::accuracyRowsCsv({row});
        const QList<QByteArray> lines = csv.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0],
                 QByteArray("method,config,samples,repeats,time_mape_median,time_mape_q1,"
                            "time_mape_q3,power_mape_median,power_mape_q1,power_mape_q3,seconds"));
        QCOMPARE(lines[1], QByteArray("pt-baseline,baseline,20,10,1.5,1.25,2,3,2.5,3.5,0.125"));
    }
};

QTEST_GUILESS_MAIN(TestAccuracyStudy)
#include "test_accuracystudy.moc"
