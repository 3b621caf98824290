// ptwb search against the simulated Jetson: each search ends with a mode within the budget,
// profiles no mode twice, and goes on where it stopped after a dropped connection or a kill.
#include "clirunner.h"
#include "store/sqlite.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <csignal>

namespace {

struct Stored
{
    qint64 measurements = -1;
    qint64 distinctModes = -1;
    qint64 pending = -1;
    qint64 failed = -1;  // modes the search tried that gave no measurement
};

Stored storedIn(const QString &db)
{
    Stored s;
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return s;
    s.measurements = *connection->queryInt(QStringLiteral("SELECT count(*) FROM measurements"));
    s.distinctModes = *connection->queryInt(QStringLiteral(
        "SELECT count(*) FROM (SELECT DISTINCT cores, cpu_khz, gpu_hz, emc_hz FROM measurements)"));
    s.pending = *connection->queryInt(
        QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'pending'"));
    s.failed = *connection->queryInt(
        QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'failed'"));
    return s;
}

// The stored power of a mode given as ptwb prints it (CORES/CPU/GPU/EMC).
double storedPower(const QString &db, const QString &mode)
{
    auto connection = ptwb::SqliteConnection::open(db, false);
    const QStringList parts = mode.split(QLatin1Char('/'));
    if (!connection || parts.size() != 4)
        return -1;
    auto select = connection->prepare(
        QStringLiteral("SELECT power_w FROM measurements WHERE cores = ?1 AND cpu_khz = ?2 AND "
                       "gpu_hz = ?3 AND emc_hz = ?4"));
    if (!select)
        return -1;
    for (int i = 0; i < 4; ++i)
        select->bind(i + 1, parts[i].toLongLong());
    const auto row = select->step();
    return row && *row ? select->columnDouble(0) : -1;
}

QJsonObject lastObject(const QString &out)
{
    const QStringList lines = out.trimmed().split(QLatin1Char('\n'));
    return QJsonDocument::fromJson(lines.last().toUtf8()).object();
}

}  // namespace

class TestSearch : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    QString fresh(const QString &name)
    {
        return m_dir.filePath(QStringLiteral("%1-%2").arg(name).arg(++m_runs));
    }
    QStringList searchArguments(const QString &db, const QString &strategy, double budget,
                                const QStringList &extra = {})
    {
        return QStringList {QStringLiteral("search"),
                            QStringLiteral("--db"),
                            db,
                            QStringLiteral("--target"),
                            QStringLiteral("sim:orin-agx"),
                            QStringLiteral("--workload"),
                            QStringLiteral("resnet18"),
                            QStringLiteral("--strategy"),
                            strategy,
                            QStringLiteral("--power-budget"),
                            QString::number(budget),
                            QStringLiteral("--minibatches"),
                            QStringLiteral("12"),
                            QStringLiteral("--sim-speed"),
                            QStringLiteral("400"),
                            QStringLiteral("--json")} +
            extra;
    }

    // The search's answer fits the budget by its stored measurement, and every mode it
    // profiled was profiled once.
    void verifyAnswer(const QString &db, const QJsonObject &answer, double budget)
    {
        QVERIFY2(answer.value(QLatin1String("fits")).toBool(),
                 qPrintable(QJsonDocument(answer).toJson()));
        const QString mode = answer.value(QLatin1String("mode")).toString();
        const double power = storedPower(db, mode);
        QVERIFY2(power > 0 && power <= budget,
                 qPrintable(QStringLiteral("%1: %2 W").arg(mode).arg(power)));
        QCOMPARE(answer.value(QLatin1String("power_w")).toDouble(), power);
        const Stored s = storedIn(db);
        QCOMPARE(s.measurements, s.distinctModes);
        // A mode that failed (on a busy machine the simulated power may not settle within 12
        // minibatches) was profiled too, without a measurement.
        QCOMPARE(s.measurements + s.failed,
                 qint64(answer.value(QLatin1String("profiled")).toInt()));
        QCOMPARE(s.pending, 0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
    }

    void eachSearchEndsWithinTheBudget_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<double>("budget");
        QTest::newRow("gmd 30 W") << "gmd" << 30.0;
        QTest::newRow("gmd 18 W") << "gmd" << 18.0;
        QTest::newRow("bs 30 W") << "bs" << 30.0;
    }

    void eachSearchEndsWithinTheBudget()
    {
        QFETCH(QString, strategy);
        QFETCH(double, budget);
        const QString db = fresh(QStringLiteral("search.sqlite"));
        const CliResult r =
            runCli(searchArguments(db, strategy, budget,
                                   {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim"))}),
                   180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject answer = lastObject(r.out);
        verifyAnswer(db, answer, budget);
        if (strategy == QLatin1String("gmd"))
            QVERIFY(answer.value(QLatin1String("profiled")).toInt() <= 15);
        // Each step is shown as it is measured.
        QCOMPARE(r.err.count(QLatin1String("step ")),
                 answer.value(QLatin1String("profiled")).toInt());
    }

    void ptsTransfersAStoredReferenceAndVerifiesItsPick()
    {
        const QString db = fresh(QStringLiteral("pts.sqlite"));
        const QString state = fresh(QStringLiteral("sim"));
        // A reference: 40 modes of resnet18 swept and a model trained on them.
        QStringList sweep =
            searchArguments(db, QStringLiteral("gmd"), 30, {QStringLiteral("--sim-state"), state});
        sweep[0] = QStringLiteral("sweep");
        sweep.remove(int(sweep.indexOf(QStringLiteral("--strategy"))), 4);
        sweep << QStringLiteral("--modes") << QStringLiteral("random:40");
        CliResult r = runCli(sweep, 180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli({QStringLiteral("train"), QStringLiteral("--db"), db,
                    QStringLiteral("--workload"), QStringLiteral("resnet18")},
                   180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        QStringList search =
            searchArguments(db, QStringLiteral("pts"), 30, {QStringLiteral("--sim-state"), state});
        search[search.indexOf(QStringLiteral("resnet18"))] = QStringLiteral("mobilenet_v3");
        // Without a reference, pts says which option it needs.
        r = runCli(search, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--reference")), qPrintable(r.err));
        search << QStringLiteral("--reference") << QStringLiteral("resnet18");
        r = runCli(search, 180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject answer = lastObject(r.out);
        QVERIFY(answer.value(QLatin1String("fits")).toBool());
        QVERIFY(answer.value(QLatin1String("power_w")).toDouble() <= 30);
        const int profiled = answer.value(QLatin1String("profiled")).toInt();
        QVERIFY2(profiled >= 8 && profiled <= 15, qPrintable(QString::number(profiled)));
        QCOMPARE(r.err.count(QLatin1String("step ")), profiled);
    }

    void aTimeBudgetFindsALowPowerModeWithinIt()
    {
        const QString db = fresh(QStringLiteral("time.sqlite"));
        QStringList arguments =
            searchArguments(db, QStringLiteral("gmd"), 30,
                            {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim"))});
        arguments[arguments.indexOf(QStringLiteral("--power-budget"))] =
            QStringLiteral("--time-budget");
        arguments[arguments.indexOf(QStringLiteral("30"))] = QStringLiteral("150");
        const CliResult r = runCli(arguments, 180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject answer = lastObject(r.out);
        QCOMPARE(answer.value(QLatin1String("time_budget_ms")).toDouble(), 150.0);
        QVERIFY(answer.value(QLatin1String("fits")).toBool());
        QVERIFY2(answer.value(QLatin1String("time_ms")).toDouble() <= 150,
                 qPrintable(QJsonDocument(answer).toJson()));
        // Below MAXN's power: the point of a time budget.
        QVERIFY(answer.value(QLatin1String("power_w")).toDouble() < 40);
        const Stored s = storedIn(db);
        QCOMPARE(s.measurements, s.distinctModes);
    }

    void aDroppedConnectionDoesNotProfileAModeTwice()
    {
        const QString db = fresh(QStringLiteral("drop.sqlite"));
        const CliResult r =
            runCli(searchArguments(db, QStringLiteral("gmd"), 30,
                                   {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
                                    QStringLiteral("--sim-fault"), QStringLiteral("drop-after:9")}),
                   180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("reconnecting")), qPrintable(r.err));
        verifyAnswer(db, lastObject(r.out), 30);
    }

    void aKilledSearchResumesWhereItStopped()
    {
        const QString db = fresh(QStringLiteral("killed.sqlite"));
        const QString state = fresh(QStringLiteral("sim"));
        QProcess search;
        search.setProgram(QStringLiteral(PTWB_CLI));
        QStringList arguments =
            searchArguments(db, QStringLiteral("gmd"), 30, {QStringLiteral("--sim-state"), state});
        arguments[arguments.indexOf(QStringLiteral("12"))] = QStringLiteral("60");  // slower
        search.setArguments(arguments);
        search.start();
        QVERIFY(search.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(storedIn(db).measurements >= 3, 120000);
        ::kill(pid_t(search.processId()), SIGKILL);
        search.waitForFinished();
        const qint64 before = storedIn(db).measurements;

        const CliResult r = runCli(
            {QStringLiteral("search"), QStringLiteral("--db"), db, QStringLiteral("--target"),
             QStringLiteral("sim:orin-agx"), QStringLiteral("--workload"),
             QStringLiteral("resnet18"), QStringLiteral("--resume"), QStringLiteral("--sim-state"),
             state, QStringLiteral("--sim-speed"), QStringLiteral("400"), QStringLiteral("--json")},
            180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject answer = lastObject(r.out);
        QCOMPARE(answer.value(QLatin1String("power_budget_w")).toDouble(), 30.0);
        verifyAnswer(db, answer, 30);
        QVERIFY(answer.value(QLatin1String("profiled")).toInt() >= before);
    }

    void appliesTheModeItFound()
    {
        const QString db = fresh(QStringLiteral("apply.sqlite"));
        const CliResult r =
            runCli(searchArguments(db, QStringLiteral("bs"), 25,
                                   {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
                                    QStringLiteral("--apply"),
                                    // 9 s at 400 times real time
                                    QStringLiteral("--confirm-within"), QStringLiteral("3600")}),
                   180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject answer = lastObject(r.out);
        QVERIFY(answer.value(QLatin1String("applied")).toBool());
        verifyAnswer(db, answer, 25);
    }

    void badInputNamesTheOption()
    {
        const QString db = fresh(QStringLiteral("bad.sqlite"));
        CliResult r = runCli(searchArguments(db, QStringLiteral("optimal"), 30));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--strategy")), qPrintable(r.err));
        r = runCli(searchArguments(db, QStringLiteral("gmd"), -3));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--power-budget")), qPrintable(r.err));
        QCOMPARE(storedIn(db).measurements, -1);  // nothing created

        // --resume goes on with a search only, never with another kind of sweep.
        const QString state = fresh(QStringLiteral("sim"));
        QStringList sweep =
            searchArguments(db, QStringLiteral("gmd"), 30, {QStringLiteral("--sim-state"), state});
        sweep[0] = QStringLiteral("sweep");
        const int strategy = int(sweep.indexOf(QStringLiteral("--strategy")));
        sweep.remove(strategy, 4);  // --strategy gmd --power-budget 30
        sweep << QStringLiteral("--modes") << QStringLiteral("random:2");
        r = runCli(sweep, 120000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QStringList resume =
            searchArguments(db, QStringLiteral("gmd"), 30, {QStringLiteral("--sim-state"), state});
        resume << QStringLiteral("--resume");
        r = runCli(resume, 120000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("not a search")), qPrintable(r.err));
        QCOMPARE(storedIn(db).measurements, 2);
    }
};

QTEST_GUILESS_MAIN(TestSearch)
#include "test_search.moc"
