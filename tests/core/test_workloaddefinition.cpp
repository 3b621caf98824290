// A saved workload definition (issue 20): what can be stored, and its stored form round trip.
#include "store/workloaddefinition.h"

#include <QJsonDocument>
#include <QTest>

using namespace ptwb;

namespace {

WorkloadDefinition tqdmScript()
{
    WorkloadDefinition d;
    d.name = QStringLiteral("mytrain");
    d.argv = {QStringLiteral("python3"), QStringLiteral("train.py"), QStringLiteral("--lr"),
              QStringLiteral("0.1 warm")};
    d.workingDirectory = QStringLiteral("~/run");
    d.environment = {{QStringLiteral("PATH"), QStringLiteral("/home/nvidia/venv/bin:/usr/bin")},
                     {QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("0")}};
    d.recogniser = WorkloadDefinition::Recogniser::Regex;
    d.pattern = QStringLiteral("(?P<rate>[0-9.]+)it/s");
    d.unit = WorkloadDefinition::RateUnit::PerSecond;
    d.skip = 3;
    d.keep = 30;
    d.timeoutSeconds = 200;
    return d;
}

}  // namespace

class TestWorkloadDefinition : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aGoodDefinitionHasNoProblem()
    {
        QCOMPARE(tqdmScript().problem(), QString());
        QCOMPARE(tqdmScript().minibatchesPerMode(), 33);
    }

    void storedFormRoundTripsKeepingTheEnvironmentOrder()
    {
        const WorkloadDefinition d = tqdmScript();
        const QByteArray text = QJsonDocument(d.toJson()).toJson();
        const Expected<WorkloadDefinition> back =
            WorkloadDefinition::fromJson(QJsonDocument::fromJson(text).object(), d.name);
        QVERIFY2(back, qPrintable(back.error()));
        QVERIFY(*back == d);
        QCOMPARE(back->environment.first().first, QStringLiteral("PATH"));
        QCOMPARE(back->argv.last(), QStringLiteral("0.1 warm"));
        QCOMPARE(back->unit, WorkloadDefinition::RateUnit::PerSecond);
    }

    void eachBadFieldIsNamed_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("words");
        QTest::newRow("built-in name") << "name"
                                       << "built-in";
        QTest::newRow("empty name") << "name"
                                    << "letters";
        QTest::newRow("no command") << "argv"
                                    << "command";
        QTest::newRow("relative cwd") << "cwd"
                                      << "absolute";
        QTest::newRow("secret") << "env"
                                << "looks like a secret";
        QTest::newRow("own variable") << "env"
                                      << "PTWB_";
        QTest::newRow("twice") << "env"
                               << "set twice";
        QTest::newRow("two groups") << "pattern"
                                    << "found 2";
        QTest::newRow("no group") << "pattern"
                                  << "found 0";
        QTest::newRow("not a regex") << "pattern"
                                     << "not a regular expression";
        QTest::newRow("keep one") << "keep"
                                  << "2 to";
        QTest::newRow("timeout") << "timeout"
                                 << "seconds";
    }

    void eachBadFieldIsNamed()
    {
        QFETCH(QString, field);
        QFETCH(QString, words);
        WorkloadDefinition d = tqdmScript();
        const QString row = QString::fromLatin1(QTest::currentDataTag());
        if (row == QLatin1String("built-in name"))
            d.name = QStringLiteral("mobilenet_v3-inference");
        else if (row == QLatin1String("empty name"))
            d.name.clear();
        else if (row == QLatin1String("no command"))
            d.argv = {QStringLiteral(" ")};
        else if (row == QLatin1String("relative cwd"))
            d.workingDirectory = QStringLiteral("run");
        else if (row == QLatin1String("secret"))
            d.environment.append({QStringLiteral("WANDB_API_KEY"), QStringLiteral("x")});
        else if (row == QLatin1String("own variable"))
            d.environment.append({QStringLiteral("PTWB_BATCH_SIZE"), QStringLiteral("4")});
        else if (row == QLatin1String("twice"))
            d.environment.append({QStringLiteral("PATH"), QStringLiteral("/bin")});
        else if (row == QLatin1String("two groups"))
            d.pattern = QStringLiteral("(?P<a>\\d+) (?<b>\\d+)");
        else if (row == QLatin1String("no group"))
            d.pattern = QStringLiteral("([0-9.]+)it/s");
        else if (row == QLatin1String("not a regex"))
            d.pattern = QStringLiteral("(?P<rate>[0-9.+it/s");
        else if (row == QLatin1String("keep one"))
            d.keep = 1;
        else if (row == QLatin1String("timeout"))
            d.timeoutSeconds = 0;
        QCOMPARE(d.problemField(), field);
        QVERIFY2(d.problem().startsWith(field), qPrintable(d.problem()));
        QVERIFY2(d.problem().contains(words), qPrintable(d.problem()));
    }

    void anEscapedParenthesisIsNoGroup()
    {
        WorkloadDefinition d = tqdmScript();
        d.pattern = QStringLiteral("\\(?P<x> (?P<ms>[0-9.]+) ms");
        QCOMPARE(d.problem(), QString());
    }

    void aStoredDefinitionThatIsNotOneIsRefusedByField()
    {
        QJsonObject stored = tqdmScript().toJson();
        stored.insert(QStringLiteral("recognise"), QStringLiteral("guess"));
        const Expected<WorkloadDefinition> back =
            WorkloadDefinition::fromJson(stored, QStringLiteral("mytrain"));
        QVERIFY(!back);
        QVERIFY2(back.error().contains(QLatin1String("recognise")), qPrintable(back.error()));
        stored = tqdmScript().toJson();
        stored.insert(QStringLiteral("skip"), -4);
        QVERIFY(!WorkloadDefinition::fromJson(stored, QStringLiteral("mytrain")));
    }

    void aLineIsReadAsTheAgentWould()
    {
        QString why;
        WorkloadDefinition d = tqdmScript();  // (?P<rate>[0-9.]+)it/s, minibatches per second
        std::optional<double> ms =
            d.minibatchMsIn(QStringLiteral("100%|##########| 40/40 [00:03<00:00, 12.5it/s]"), &why);
        QVERIFY2(ms, qPrintable(why));
        QCOMPARE(*ms, 80.0);
        d.pattern = QStringLiteral("step \\d+ .* (?P<t>[0-9.]+) s");
        d.unit = WorkloadDefinition::RateUnit::Seconds;
        ms = d.minibatchMsIn(QStringLiteral("step 40 loss 1.2 0.095 s"), &why);
        QVERIFY2(ms, qPrintable(why));
        QCOMPARE(*ms, 95.0);
        d.pattern = QStringLiteral("(?P<ms>[0-9.]+) ms");
        d.unit = WorkloadDefinition::RateUnit::Milliseconds;
        QCOMPARE(d.minibatchMsIn(QStringLiteral("step 3 took 41.5 ms")).value_or(0), 41.5);
        QVERIFY(!d.minibatchMsIn(QStringLiteral("epoch 1 done"), &why));
        QVERIFY2(why.contains(QLatin1String("no match")), qPrintable(why));
        d.pattern = QStringLiteral("(?P<rate>[0-9.?]+)it/s");
        d.unit = WorkloadDefinition::RateUnit::PerSecond;
        QVERIFY(!d.minibatchMsIn(QStringLiteral("0/40 [00:00<?, ?it/s]"), &why));
        QVERIFY2(why.contains(QLatin1String("not a positive number")), qPrintable(why));
    }

    void commandLineQuotesForDisplay()
    {
        QCOMPARE(tqdmScript().commandLine(), QStringLiteral("python3 train.py --lr '0.1 warm'"));
    }
};

QTEST_GUILESS_MAIN(TestWorkloadDefinition)
#include "test_workloaddefinition.moc"
