// ptwb workload (issue 20): saved definitions added, listed, shown and removed with errors that
// name the flag; tried on the simulated Jetson with each recogniser; swept, resumed with the run
// it was planned with after an edit, and failing clearly with the sweep going on or stopping.
#include "clirunner.h"
#include "store/sqlite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace {

QJsonObject lastObject(const QString &out)
{
    const QStringList lines = out.trimmed().split(QLatin1Char('\n'));
    return QJsonDocument::fromJson(lines.last().toUtf8()).object();
}

QList<QJsonObject> objects(const QString &out)
{
    QList<QJsonObject> all;
    for (const QString &line : out.trimmed().split(QLatin1Char('\n')))
        all.append(QJsonDocument::fromJson(line.toUtf8()).object());
    return all;
}

qint64 count(const QString &db, const QString &sql)
{
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return -1;
    const auto value = connection->queryInt(sql);
    return value ? *value : -1;
}

QString text(const QString &db, const QString &sql)
{
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return {};
    auto select = connection->prepare(sql);
    if (!select || !*select->step())
        return {};
    return select->columnText(0);
}

}  // namespace

class TestWorkloadCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    QString fresh(const QString &name)
    {
        return m_dir.filePath(QStringLiteral("%1-%2").arg(name).arg(++m_runs));
    }
    CliResult add(const QString &db, const QStringList &arguments)
    {
        return runCli(QStringList {QStringLiteral("workload"), QStringLiteral("add"),
                                   QStringLiteral("--db"), db} +
                      arguments);
    }
    // The simulated train.py (remote/simulator/sim_train.py) is what the device runs.
    bool haveSimulatedTrainScript() const
    {
        return QFile::exists(QStringLiteral(PTWB_SOURCE_DIR "/remote/simulator/sim_train.py"));
    }
    // Device seconds pass `speed` times faster than the wall clock's: a workload test's
    // seconds and a definition's timeout are device seconds, so they get a slower clock or a
    // longer timeout than Python's start-up needs on a busy machine.
    QStringList simulator(const QString &state, int speed = 400) const
    {
        return {QStringLiteral("--target"),    QStringLiteral("sim:orin-agx"),
                QStringLiteral("--sim-speed"), QString::number(speed),
                QStringLiteral("--sim-state"), state};
    }
    CliResult sweep(const QString &db, const QString &workload, const QString &modes,
                    const QStringList &extra)
    {
        return runCli(QStringList {QStringLiteral("sweep"), QStringLiteral("--db"), db,
                                   QStringLiteral("--workload"), workload,
                                   QStringLiteral("--modes"), modes, QStringLiteral("--json")} +
                          extra,
                      240000);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void addListShowRemove()
    {
        const QString db = fresh(QStringLiteral("lib.sqlite"));
        CliResult r =
            add(db,
                {QStringLiteral("sim-tqdm"), QStringLiteral("--recognise"), QStringLiteral("regex"),
                 QStringLiteral("--pattern"), QStringLiteral("(?P<rate>[0-9.]+)it/s"),
                 QStringLiteral("--unit"), QStringLiteral("per_s"), QStringLiteral("--env"),
                 QStringLiteral("CUDA_VISIBLE_DEVICES=0"), QStringLiteral("--skip"),
                 QStringLiteral("2"), QStringLiteral("--keep"), QStringLiteral("8"),
                 QStringLiteral("--"), QStringLiteral("python3"), QStringLiteral("train.py"),
                 QStringLiteral("--log"), QStringLiteral("tqdm")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QLatin1String("saved workload sim-tqdm: python3 train.py --log "
                                              "tqdm")),
                 qPrintable(r.out));
        r = add(db,
                {QStringLiteral("nano-only"), QStringLiteral("--device-kind"),
                 QStringLiteral("orin-nano"), QStringLiteral("--"), QStringLiteral("./run")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        r = runCli({QStringLiteral("workload"), QStringLiteral("list"), QStringLiteral("--db"), db,
                    QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QList<QJsonObject> entries = objects(r.out);
        QCOMPARE(entries.size(), 6);  // the four built-ins first, then by name
        QCOMPARE(entries.first().value(QLatin1String("name")).toString(),
                 QStringLiteral("resnet18"));
        QVERIFY(entries.first().value(QLatin1String("builtin")).toBool());
        QCOMPARE(entries.at(4).value(QLatin1String("name")).toString(),
                 QStringLiteral("nano-only"));
        const QJsonObject tqdm = entries.at(5).value(QLatin1String("definition")).toObject();
        QCOMPARE(tqdm.value(QLatin1String("pattern")).toString(),
                 QStringLiteral("(?P<rate>[0-9.]+)it/s"));
        QCOMPARE(tqdm.value(QLatin1String("skip")).toInt(), 2);
        // a device kind's list leaves out the definitions for another kind
        r = runCli({QStringLiteral("workload"), QStringLiteral("list"), QStringLiteral("--db"), db,
                    QStringLiteral("--device-kind"), QStringLiteral("orin-agx"),
                    QStringLiteral("--json")});
        QCOMPARE(objects(r.out).size(), 5);

        r = runCli({QStringLiteral("workload"), QStringLiteral("show"), QStringLiteral("sim-tqdm"),
                    QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QLatin1String("env:         CUDA_VISIBLE_DEVICES=0")),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QLatin1String("skip 2, keep 8 per mode")), qPrintable(r.out));
        r = runCli({QStringLiteral("workload"), QStringLiteral("show"), QStringLiteral("sim-tqdm"),
                    QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(lastObject(r.out)
                     .value(QLatin1String("definition"))
                     .toObject()
                     .value(QLatin1String("recognise"))
                     .toString(),
                 QStringLiteral("regex"));

        // a name taken, and then replaced
        r = add(db, {QStringLiteral("sim-tqdm"), QStringLiteral("--"), QStringLiteral("python3")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--replace")), qPrintable(r.err));
        r = add(db,
                {QStringLiteral("sim-tqdm"), QStringLiteral("--replace"), QStringLiteral("--"),
                 QStringLiteral("python3"), QStringLiteral("other.py")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli({QStringLiteral("workload"), QStringLiteral("show"), QStringLiteral("sim-tqdm"),
                    QStringLiteral("--db"), db});
        QVERIFY2(r.out.contains(QLatin1String("python3 other.py")), qPrintable(r.out));

        r = runCli({QStringLiteral("workload"), QStringLiteral("remove"),
                    QStringLiteral("sim-tqdm"), QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli({QStringLiteral("workload"), QStringLiteral("show"), QStringLiteral("sim-tqdm"),
                    QStringLiteral("--db"), db});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("no workload named 'sim-tqdm'")), qPrintable(r.err));
        r = runCli({QStringLiteral("workload"), QStringLiteral("remove"),
                    QStringLiteral("resnet18"), QStringLiteral("--db"), db});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("built in")), qPrintable(r.err));
    }

    void badDefinitionsNameTheirFlag_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("secret env")
            << QStringList {QStringLiteral("a"), QStringLiteral("--env"),
                            QStringLiteral("HF_TOKEN=x"), QStringLiteral("--"),
                            QStringLiteral("python3")}
            << QStringLiteral("--env: env[1]: HF_TOKEN looks like a secret");
        QTest::newRow("env without =")
            << QStringList {QStringLiteral("a"), QStringLiteral("--env"), QStringLiteral("X"),
                            QStringLiteral("--"), QStringLiteral("python3")}
            << QStringLiteral("--env: 'X': expected NAME=VALUE");
        QTest::newRow("relative cwd")
            << QStringList {QStringLiteral("a"), QStringLiteral("--cwd"), QStringLiteral("run"),
                            QStringLiteral("--"), QStringLiteral("python3")}
            << QStringLiteral("--cwd: cwd: expected an absolute directory");
        QTest::newRow("two groups")
            << QStringList {QStringLiteral("a"),
                            QStringLiteral("--recognise"),
                            QStringLiteral("regex"),
                            QStringLiteral("--pattern"),
                            QStringLiteral("(?P<a>1)(?P<b>2)"),
                            QStringLiteral("--"),
                            QStringLiteral("python3")}
            << QStringLiteral("--pattern: pattern: expected exactly one named group");
        QTest::newRow("regex without pattern")
            << QStringList {QStringLiteral("a"), QStringLiteral("--recognise"),
                            QStringLiteral("regex"), QStringLiteral("--"), QStringLiteral("p")}
            << QStringLiteral("--pattern: --recognise regex needs a pattern");
        QTest::newRow("unknown recogniser")
            << QStringList {QStringLiteral("a"), QStringLiteral("--recognise"),
                            QStringLiteral("magic"), QStringLiteral("--"), QStringLiteral("p")}
            << QStringLiteral("--recognise: 'magic'");
        QTest::newRow("keep") << QStringList {QStringLiteral("a"), QStringLiteral("--keep"),
                                              QStringLiteral("1"), QStringLiteral("--"),
                                              QStringLiteral("p")}
                              << QStringLiteral("--keep: keep: expected 2 to");
        QTest::newRow("skip not a number")
            << QStringList {QStringLiteral("a"), QStringLiteral("--skip"), QStringLiteral("x"),
                            QStringLiteral("--"), QStringLiteral("p")}
            << QStringLiteral("--skip: 'x' is not a whole number");
        QTest::newRow("built-in name")
            << QStringList {QStringLiteral("mobilenet_v3"), QStringLiteral("--"),
                            QStringLiteral("p")}
            << QStringLiteral("NAME: name: mobilenet_v3 is a built-in workload");
        QTest::newRow("no command")
            << QStringList {QStringLiteral("a")} << QStringLiteral("ARGV (after --)");
    }
    void badDefinitionsNameTheirFlag()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const QString db = fresh(QStringLiteral("bad.sqlite"));
        const CliResult r = add(db, arguments);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QCOMPARE(count(db, QStringLiteral("SELECT count(*) FROM workload_definitions")), 0);
    }

    void badUsageIsRefused()
    {
        const QString db = fresh(QStringLiteral("usage.sqlite"));
        CliResult r = runCli(
            {QStringLiteral("workload"), QStringLiteral("frob"), QStringLiteral("--db"), db});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("expected list, show, add, remove or test")),
                 qPrintable(r.err));
        r = runCli({QStringLiteral("workload"), QStringLiteral("list"), QStringLiteral("--db"), db,
                    QStringLiteral("--keep"), QStringLiteral("3")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--keep: only with 'workload add'")),
                 qPrintable(r.err));
        r = runCli({QStringLiteral("workload"), QStringLiteral("test"), QStringLiteral("x"),
                    QStringLiteral("--db"), db});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--target")), qPrintable(r.err));
        r = runCli({QStringLiteral("workload"), QStringLiteral("test"), QStringLiteral("nothing"),
                    QStringLiteral("--db"), db, QStringLiteral("--target"),
                    QStringLiteral("sim:orin-agx")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("no workload named 'nothing'")), qPrintable(r.err));
        r = runCli({QStringLiteral("workload"), QStringLiteral("test"), QStringLiteral("resnet18"),
                    QStringLiteral("--db"), db, QStringLiteral("--target"),
                    QStringLiteral("sim:orin-agx"), QStringLiteral("--seconds"),
                    QStringLiteral("601")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--seconds: expected 1 to 600")), qPrintable(r.err));
    }

    // Try before you sweep, on the simulated Jetson's train.py with each recogniser.
    void testRecognisesEachWay_data()
    {
        QTest::addColumn<QStringList>("definition");
        QTest::newRow("marker") << QStringList {QStringLiteral("--"), QStringLiteral("python3"),
                                                QStringLiteral("train.py"), QStringLiteral("--log"),
                                                QStringLiteral("marker")};
        QTest::newRow("tqdm") << QStringList {
            QStringLiteral("--recognise"), QStringLiteral("regex"),
            QStringLiteral("--pattern"),   QStringLiteral("(?P<rate>[0-9.]+)it/s"),
            QStringLiteral("--unit"),      QStringLiteral("per_s"),
            QStringLiteral("--"),          QStringLiteral("python3"),
            QStringLiteral("train.py"),    QStringLiteral("--log"),
            QStringLiteral("tqdm")};
        QTest::newRow("launcher") << QStringList {
            QStringLiteral("--recognise"), QStringLiteral("launcher"), QStringLiteral("--"),
            QStringLiteral("python3"),     QStringLiteral("train.py"), QStringLiteral("--log"),
            QStringLiteral("none")};
    }
    void testRecognisesEachWay()
    {
        if (!haveSimulatedTrainScript())
            QSKIP("remote/simulator/sim_train.py is missing: the simulated train.py comes with "
                  "the agent's issue 20 work (branch wt-agent20)");
        QFETCH(QStringList, definition);
        const QString db = fresh(QStringLiteral("try.sqlite"));
        CliResult r = add(db, QStringList {QStringLiteral("mine")} + definition);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList test = QStringList {QStringLiteral("workload"),
                                              QStringLiteral("test"),
                                              QStringLiteral("mine"),
                                              QStringLiteral("--db"),
                                              db,
                                              QStringLiteral("--seconds"),
                                              QStringLiteral("120")} +
            simulator(fresh(QStringLiteral("sim")), 10);
        r = runCli(test + QStringList {QStringLiteral("--json")}, 120000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject report = lastObject(r.out);
        QVERIFY(report.value(QLatin1String("recognised")).toBool());
        QVERIFY(report.value(QLatin1String("minibatches")).toInt() >= 10);
        QVERIFY(report.value(QLatin1String("median_ms")).toDouble() > 0);
        QVERIFY(report.value(QLatin1String("median_w")).toDouble() > 0);
        QVERIFY(report.value(QLatin1String("reason")).isNull());
        // the text report marks the recognised lines (the launcher's steps are no output lines)
        r = runCli(test, 120000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QLatin1String("minibatches recognised in")), qPrintable(r.out));
        if (QString::fromLatin1(QTest::currentDataTag()) != QLatin1String("launcher"))
            QVERIFY2(r.out.contains(QLatin1String("\n*")), qPrintable(r.out));
    }

    // Nothing recognised: the reason, the lines, a failed exit; and device output reaches the
    // terminal without its control characters.
    void testSaysWhyNothingWasRecognised()
    {
        if (!haveSimulatedTrainScript())
            QSKIP("remote/simulator/sim_train.py is missing: the simulated train.py comes with "
                  "the agent's issue 20 work (branch wt-agent20)");
        const QString db = fresh(QStringLiteral("none.sqlite"));
        CliResult r =
            add(db,
                {QStringLiteral("wrong"), QStringLiteral("--recognise"), QStringLiteral("regex"),
                 QStringLiteral("--pattern"), QStringLiteral("(?P<ms>[0-9.]+) msec"),
                 QStringLiteral("--"), QStringLiteral("python3"), QStringLiteral("-c"),
                 QStringLiteral("import time\n"
                                "for i in range(3):\n"
                                "    print('\\x1b[31mred\\x1b[0m step', i, "
                                "flush=True)\n"
                                "    time.sleep(0.05)\n")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli(QStringList {QStringLiteral("workload"), QStringLiteral("test"),
                                QStringLiteral("wrong"), QStringLiteral("--db"), db,
                                QStringLiteral("--seconds"), QStringLiteral("20")} +
                       simulator(fresh(QStringLiteral("sim")), 10),
                   120000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QLatin1String("red step 2")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QChar(0x1b)), qPrintable(r.out));
        QVERIFY2(r.out.contains(QLatin1String("not usable for a sweep: ")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QLatin1String("exited with status 0")), qPrintable(r.out));
    }

    // A sweep of a saved definition: its skip + keep per mode, its whole run in the plan.
    void aSweepOfTenModesRunsTheDefinition()
    {
        if (!haveSimulatedTrainScript())
            QSKIP("remote/simulator/sim_train.py is missing: the simulated train.py comes with "
                  "the agent's issue 20 work (branch wt-agent20)");
        const QString db = fresh(QStringLiteral("sweep.sqlite"));
        CliResult r =
            add(db,
                {QStringLiteral("sim-marker"), QStringLiteral("--timeout"), QStringLiteral("3600"),
                 QStringLiteral("--skip"), QStringLiteral("2"), QStringLiteral("--keep"),
                 QStringLiteral("8"), QStringLiteral("--"), QStringLiteral("python3"),
                 QStringLiteral("train.py"), QStringLiteral("--log"), QStringLiteral("marker")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = sweep(db, QStringLiteral("sim-marker"), QStringLiteral("random:10"),
                  simulator(fresh(QStringLiteral("sim"))));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(lastObject(r.out).value(QLatin1String("done")).toInt(), 10);
        QCOMPARE(count(db,
                       QStringLiteral("SELECT count(*) FROM measurements m JOIN workloads w "
                                      "ON w.id = m.workload_id WHERE w.name = "
                                      "'sim-marker'")),
                 10);
        QCOMPARE(count(db, QStringLiteral("SELECT minibatches FROM sweeps")), 10);
        const QJsonObject run =
            QJsonDocument::fromJson(text(db,
                                         QStringLiteral("SELECT json_extract(plan, '$.run') "
                                                        "FROM sweeps"))
                                        .toUtf8())
                .object();
        QCOMPARE(run.value(QLatin1String("argv")).toArray().at(1).toString(),
                 QStringLiteral("train.py"));
        QCOMPARE(run.value(QLatin1String("skip")).toInt(), 2);
        QCOMPARE(run.value(QLatin1String("recognise")).toObject().value(QLatin1String("by")),
                 QJsonValue(QStringLiteral("marker")));
    }

    // Stopped after a refused mode, the definition edited to a command that cannot run, then
    // resumed: the pending modes run the recorded command and are measured.
    void aResumedSweepRunsTheRecordedDefinition()
    {
        if (!haveSimulatedTrainScript())
            QSKIP("remote/simulator/sim_train.py is missing: the simulated train.py comes with "
                  "the agent's issue 20 work (branch wt-agent20)");
        const QString db = fresh(QStringLiteral("resume.sqlite"));
        const QString state = fresh(QStringLiteral("sim"));
        CliResult r =
            add(db,
                {QStringLiteral("mine"), QStringLiteral("--timeout"), QStringLiteral("3600"),
                 QStringLiteral("--keep"), QStringLiteral("5"), QStringLiteral("--"),
                 QStringLiteral("python3"), QStringLiteral("train.py"), QStringLiteral("--log"),
                 QStringLiteral("marker")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString grid =
            QStringLiteral("grid:cores=12;cpu=2201600;emc=3199000000;gpu=930750000..1300500000");
        // the first mode (the highest GPU clock) is refused: one failure stops this sweep
        r = sweep(db, QStringLiteral("mine"), grid,
                  simulator(state) +
                      QStringList {QStringLiteral("--sim-fault"),
                                   QStringLiteral("reject:gpu_hz=1300500000"),
                                   QStringLiteral("--stop-after-failures"), QStringLiteral("1")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("stopped after 1 consecutive failures: ")),
                 qPrintable(r.err));
        QCOMPARE(text(db, QStringLiteral("SELECT state FROM sweeps")), QStringLiteral("paused"));
        const qint64 pending =
            count(db, QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'pending'"));
        QCOMPARE(pending, 4);
        r = add(db,
                {QStringLiteral("mine"), QStringLiteral("--replace"), QStringLiteral("--"),
                 QStringLiteral("no-such-command-ptwb")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli(QStringList {QStringLiteral("sweep"), QStringLiteral("--db"), db,
                                QStringLiteral("--workload"), QStringLiteral("mine"),
                                QStringLiteral("--resume"), QStringLiteral("--json")} +
                       simulator(state),
                   240000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(lastObject(r.out).value(QLatin1String("done")).toInt(), int(pending));
        QVERIFY2(!r.err.contains(QLatin1String("no-such-command-ptwb")), qPrintable(r.err));
        QCOMPARE(count(db, QStringLiteral("SELECT count(*) FROM measurements")), pending);
        QCOMPARE(count(db, QStringLiteral("SELECT minibatches FROM sweeps")), 6);  // 1 + 5
    }

    // A workload that fails: every mode fails with the reason and its last lines, the sweep goes
    // on to the end (--stop-after-failures 0) and exits 1: nothing was measured.
    void aFailingWorkloadKeepsItsReasonAndLines()
    {
        if (!haveSimulatedTrainScript())
            QSKIP("remote/simulator/sim_train.py is missing: the simulated train.py comes with "
                  "the agent's issue 20 work (branch wt-agent20)");
        const QString db = fresh(QStringLiteral("fail.sqlite"));
        CliResult r =
            add(db,
                {QStringLiteral("broken"), QStringLiteral("--timeout"), QStringLiteral("3600"),
                 QStringLiteral("--"), QStringLiteral("python3"), QStringLiteral("train.py"),
                 QStringLiteral("--log"), QStringLiteral("marker"), QStringLiteral("--fail-after"),
                 QStringLiteral("2"), QStringLiteral("--exit-status"), QStringLiteral("3")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = sweep(db, QStringLiteral("broken"), QStringLiteral("random:4"),
                  simulator(fresh(QStringLiteral("sim"))) +
                      QStringList {QStringLiteral("--stop-after-failures"), QStringLiteral("0")});
        // every mode finished, failed: the work failed (exit 1), the sweep is complete
        QVERIFY2(r.exitCode == 1, qPrintable(r.err));
        QCOMPARE(lastObject(r.out).value(QLatin1String("failed")).toInt(), 4);
        QCOMPARE(lastObject(r.out).value(QLatin1String("pending")).toInt(), 0);
        QCOMPARE(count(db,
                       QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = "
                                      "'failed' AND reason LIKE '%status 3 after 2 of%' AND "
                                      "output IS NOT NULL")),
                 4);
        const QJsonArray output =
            QJsonDocument::fromJson(
                text(db, QStringLiteral("SELECT output FROM sweep_modes LIMIT 1")).toUtf8())
                .array();
        QVERIFY(!output.isEmpty() && output.size() <= 20);
        int recognised = 0;
        int errLines = 0;
        for (const QJsonValue &line : output) {
            recognised += line.toObject().value(QLatin1String("ms")).isDouble();
            errLines += line.toObject().value(QLatin1String("stream")) == QLatin1String("err");
        }
        QCOMPARE(recognised, 2);
        QVERIFY(errLines > 0);
    }

    // A command that does not exist: three modes fail with the reason, then the sweep stops,
    // paused and resumable, with the rest pending.
    void consecutiveFailuresStopTheSweep()
    {
        const QString db = fresh(QStringLiteral("stop.sqlite"));
        CliResult r = add(db,
                          {QStringLiteral("missing"), QStringLiteral("--"),
                           QStringLiteral("no-such-command-ptwb"), QStringLiteral("--epochs")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = sweep(db, QStringLiteral("missing"), QStringLiteral("random:6"),
                  simulator(fresh(QStringLiteral("sim"))));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("stopped after 3 consecutive failures: ")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("could not start no-such-command-ptwb")),
                 qPrintable(r.err));
        const QJsonObject summary = lastObject(r.out);
        QCOMPARE(summary.value(QLatin1String("failed")).toInt(), 3);
        QCOMPARE(summary.value(QLatin1String("pending")).toInt(), 3);
        QCOMPARE(text(db, QStringLiteral("SELECT state FROM sweeps")), QStringLiteral("paused"));
        QCOMPARE(count(db,
                       QStringLiteral("SELECT count(*) FROM sweep_modes WHERE reason LIKE "
                                      "'%could not start no-such-command-ptwb%'")),
                 3);
        // A command that cannot start fails the same way in every mode: tried once, not retried.
        QVERIFY2(!r.err.contains(QLatin1String("trying again")), qPrintable(r.err));
        r = runCli({QStringLiteral("sweep"), QStringLiteral("--db"), db, QStringLiteral("--target"),
                    QStringLiteral("sim:orin-agx"), QStringLiteral("--workload"),
                    QStringLiteral("missing"), QStringLiteral("--modes"), QStringLiteral("all"),
                    QStringLiteral("--stop-after-failures"), QStringLiteral("-1")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--stop-after-failures: '-1'")), qPrintable(r.err));
    }

    // Failures in a row, not in all: a measured mode between two refused ones resets the count.
    void aMeasuredModeResetsTheFailureCount()
    {
        const QString grid =
            QStringLiteral("grid:cores=12;cpu=2201600;emc=3199000000;gpu=930750000..1300500000");
        const auto run = [&](const QString &db, const QString &second) {
            return sweep(db, QStringLiteral("resnet18"), grid,
                         simulator(fresh(QStringLiteral("sim"))) +
                             QStringList {QStringLiteral("--sim-fault"),
                                          QStringLiteral("reject:gpu_hz=1300500000"),
                                          QStringLiteral("--sim-fault"),
                                          QStringLiteral("reject:gpu_hz=%1").arg(second),
                                          QStringLiteral("--stop-after-failures"),
                                          QStringLiteral("2"), QStringLiteral("--minibatches"),
                                          QStringLiteral("20")});
        };
        // the plan runs from the highest GPU clock down: refused, measured, refused, ...
        const QString apart = fresh(QStringLiteral("apart.sqlite"));
        CliResult r = run(apart, QStringLiteral("1134750000"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(lastObject(r.out).value(QLatin1String("failed")).toInt(), 2);
        QCOMPARE(lastObject(r.out).value(QLatin1String("done")).toInt(), 3);
        QCOMPARE(text(apart, QStringLiteral("SELECT state FROM sweeps")), QStringLiteral("done"));
        // refused, refused: stopped with three modes pending
        const QString together = fresh(QStringLiteral("together.sqlite"));
        r = run(together, QStringLiteral("1236750000"));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("stopped after 2 consecutive failures: ")),
                 qPrintable(r.err));
        QCOMPARE(lastObject(r.out).value(QLatin1String("pending")).toInt(), 3);
        QCOMPARE(text(together, QStringLiteral("SELECT state FROM sweeps")),
                 QStringLiteral("paused"));
    }
};

QTEST_GUILESS_MAIN(TestWorkloadCli)
#include "test_workloadcli.moc"
