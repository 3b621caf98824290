// What the device runs (WorkloadSpec, issue 20): a saved definition's whole run on the wire, its
// JSON read back the same, and the plans stored before it still reading byte for byte.
#include "store/workloaddefinition.h"
#include "wire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace ptwb;

namespace {

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject parsed(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

WorkloadDefinition tqdm()
{
    WorkloadDefinition d;
    d.name = QStringLiteral("sim-tqdm");
    d.argv = {QStringLiteral("python3"), QStringLiteral("train.py"), QStringLiteral("--log"),
              QStringLiteral("tqdm")};
    d.workingDirectory = QStringLiteral("~/run");
    d.environment = {{QStringLiteral("PATH"), QStringLiteral("/venv/bin:/usr/bin")},
                     {QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("0")}};
    d.recogniser = WorkloadDefinition::Recogniser::Regex;
    d.pattern = QStringLiteral("(?P<rate>[0-9.]+)it/s");
    d.unit = WorkloadDefinition::RateUnit::PerSecond;
    d.skip = 2;
    d.keep = 10;
    d.timeoutSeconds = 60;
    return d;
}

}  // namespace

class TestWorkloadSpec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Plans stored before issue 20 hold these texts as plan.run: they read and write back the
    // same, so a resumed old sweep runs what it ran.
    void storedPlansOfBeforeReadBackByteForByte_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("builtin") << QByteArray(
            R"({"batch_size":32,"kind":"builtin","name":"resnet18"})");
        QTest::newRow("builtin inference") << QByteArray(
            R"({"batch_size":4,"inference":true,"kind":"builtin","name":"mobilenet_v3"})");
        QTest::newRow("command") << QByteArray(R"({"argv":["python3","t.py"],"kind":"command"})");
        QTest::newRow("command with cwd and batch") << QByteArray(
            R"({"argv":["python3","t.py"],"batch_size":8,"cwd":"/work","kind":"command"})");
    }
    void storedPlansOfBeforeReadBackByteForByte()
    {
        QFETCH(QByteArray, json);
        const Expected<WorkloadSpec> spec =
            WorkloadSpec::fromJson(QJsonDocument::fromJson(json).object());
        QVERIFY2(spec, qPrintable(spec.error()));
        QVERIFY(spec->environment.isEmpty());
        QVERIFY(spec->recogniser.isEmpty());
        QCOMPARE(compact(spec->toJson()), json);
    }

    void aDefinitionGoesOnTheWireWhole()
    {
        const WorkloadSpec spec = WorkloadSpec::fromDefinition(tqdm());
        const QJsonObject json = spec.toJson();
        QCOMPARE(json.value(QLatin1String("kind")).toString(), QStringLiteral("command"));
        QCOMPARE(json.value(QLatin1String("argv")).toArray().size(), 4);
        QCOMPARE(json.value(QLatin1String("cwd")).toString(), QStringLiteral("~/run"));
        QCOMPARE(
            json.value(QLatin1String("env")).toObject().value(QLatin1String("PATH")).toString(),
            QStringLiteral("/venv/bin:/usr/bin"));
        const QJsonObject recognise = json.value(QLatin1String("recognise")).toObject();
        QCOMPARE(recognise.value(QLatin1String("by")).toString(), QStringLiteral("regex"));
        QCOMPARE(recognise.value(QLatin1String("pattern")).toString(),
                 QStringLiteral("(?P<rate>[0-9.]+)it/s"));
        QCOMPARE(recognise.value(QLatin1String("unit")).toString(), QStringLiteral("per_s"));
        QCOMPARE(json.value(QLatin1String("skip")).toInt(), 2);
        QCOMPARE(json.value(QLatin1String("timeout_s")).toInt(), 60);
        QVERIFY(!json.contains(QLatin1String("batch_size")));  // not told: its own batch
        // and back: the same run, again the same JSON
        const Expected<WorkloadSpec> back = WorkloadSpec::fromJson(json);
        QVERIFY2(back, qPrintable(back.error()));
        QCOMPARE(back->environment.size(), 2);
        QCOMPARE(back->recogniser, QStringLiteral("regex"));
        QCOMPARE(back->unit, QStringLiteral("per_s"));
        QCOMPARE(back->skip, 2);
        QCOMPARE(back->timeoutSeconds, 60);
        QCOMPARE(compact(back->toJson()), compact(json));
        // at another batch size the run is the same, told its batch
        const QJsonObject at32 = back->atBatch(32).toJson();
        QCOMPARE(at32.value(QLatin1String("batch_size")).toInt(), 32);
        QCOMPARE(at32.value(QLatin1String("recognise")), json.value(QLatin1String("recognise")));
    }

    void markerAndLauncherCarryNoPattern()
    {
        WorkloadDefinition d = tqdm();
        d.recogniser = WorkloadDefinition::Recogniser::Launcher;
        const QJsonObject json = WorkloadSpec::fromDefinition(d).toJson();
        QCOMPARE(json.value(QLatin1String("recognise")).toObject(),
                 QJsonObject({{QStringLiteral("by"), QStringLiteral("launcher")}}));
    }

    void badRecognitionIsRefusedNamingTheField_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("by") << QByteArray(
                                   R"({"kind":"command","argv":["a"],"recognise":{"by":"guess"}})")
                            << QStringLiteral("workload.recognise.by");
        QTest::newRow("unit")
            << QByteArray(
                   R"j({"kind":"command","argv":["a"],"recognise":{"by":"regex","pattern":"(?P<x>1)","unit":"h"}})j")
            << QStringLiteral("workload.recognise.unit");
        QTest::newRow("env") << QByteArray(R"({"kind":"command","argv":["a"],"env":{"A":1}})")
                             << QStringLiteral("workload.env.A");
        QTest::newRow("skip") << QByteArray(R"({"kind":"command","argv":["a"],"skip":-1})")
                              << QStringLiteral("workload.skip");
        QTest::newRow("timeout") << QByteArray(R"({"kind":"command","argv":["a"],"timeout_s":0})")
                                 << QStringLiteral("workload.timeout_s");
    }
    void badRecognitionIsRefusedNamingTheField()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, field);
        const Expected<WorkloadSpec> spec =
            WorkloadSpec::fromJson(QJsonDocument::fromJson(json).object());
        QVERIFY(!spec);
        QVERIFY2(spec.error().contains(field), qPrintable(spec.error()));
    }

    // A failed profile's output (docs/device-protocol.md): kept printable, bounded, ms only when
    // a positive number.
    void failedOutputIsSanitised()
    {
        QJsonArray lines;
        for (int i = 0; i < 30; ++i)
            lines.append(
                QJsonObject {{QStringLiteral("stream"), QStringLiteral("out")},
                             {QStringLiteral("text"), QStringLiteral("line %1").arg(i)},
                             {QStringLiteral("ms"), i == 29 ? QJsonValue(12.5) : QJsonValue()}});
        lines.append(QJsonObject {{QStringLiteral("stream"), QStringLiteral("weird")},
                                  {QStringLiteral("text"), QStringLiteral("\x1b]0;title\x07ok\r")},
                                  {QStringLiteral("ms"), -3}});
        lines.append(QStringLiteral("not an object"));
        const QVector<WorkloadOutputLine> out =
            failedWorkloadOutput({{QStringLiteral("output"), lines}});
        QCOMPARE(out.size(), 19);  // of the last 20 entries, one was not a line
        QCOMPARE(out.first().text, QStringLiteral("line 12"));
        QCOMPARE(out.at(17).ms, std::optional<double>(12.5));
        QCOMPARE(out.last().stream, QStringLiteral("out"));
        QCOMPARE(out.last().text, QStringLiteral("]0;titleok"));
        QVERIFY(!out.last().ms);
        QVERIFY(failedWorkloadOutput(parsed(R"({"stderr":["x"]})")).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestWorkloadSpec)
#include "test_workloadspec.moc"
