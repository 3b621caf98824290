// ptwb sweep against the simulated Jetson: the plan is stored first, every planned mode ends up
// measured exactly once through dropped connections, reboots, a killed ptwb and a fleet of two.
#include "clirunner.h"
#include "store/sqlite.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <csignal>

namespace {

// The rows of a table in a store file; -1 when it cannot be read.
qint64 countRows(const QString &db, const char *table)
{
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return -1;
    const auto count =
        connection->queryInt(QStringLiteral("SELECT count(*) FROM %1").arg(QLatin1String(table)));
    return count ? *count : -1;
}

struct Counts
{
    qint64 planned = -1;
    qint64 measurements = -1;
    qint64 distinctModes = -1;
    qint64 done = -1;
    qint64 pending = -1;
    qint64 unplannedMeasurements = -1;  // measured modes that are not in the plan
    qint64 bootIds = -1;
};

Counts countsIn(const QString &db)
{
    Counts c;
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return c;
    c.planned = *connection->queryInt(QStringLiteral("SELECT count(*) FROM sweep_modes"));
    c.measurements = *connection->queryInt(QStringLiteral("SELECT count(*) FROM measurements"));
    c.distinctModes = *connection->queryInt(QStringLiteral(
        "SELECT count(*) FROM (SELECT DISTINCT cores, cpu_khz, gpu_hz, emc_hz FROM measurements)"));
    c.done = *connection->queryInt(
        QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'done'"));
    c.pending = *connection->queryInt(
        QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'pending'"));
    c.unplannedMeasurements = *connection->queryInt(QStringLiteral(
        "SELECT count(*) FROM measurements m WHERE NOT EXISTS (SELECT 1 FROM sweep_modes s "
        "WHERE s.measurement_id = m.id AND s.cores = m.cores AND s.cpu_khz = m.cpu_khz AND "
        "s.gpu_hz = m.gpu_hz AND s.emc_hz = m.emc_hz)"));
    c.bootIds =
        *connection->queryInt(QStringLiteral("SELECT count(DISTINCT boot_id) FROM measurements"));
    return c;
}

}  // namespace

class TestSweep : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    QStringList sweepArguments(const QString &db, int modes, const QStringList &extra = {})
    {
        return QStringList {QStringLiteral("sweep"),
                            QStringLiteral("--db"),
                            db,
                            QStringLiteral("--target"),
                            QStringLiteral("sim:orin-agx"),
                            QStringLiteral("--workload"),
                            QStringLiteral("resnet18"),
                            QStringLiteral("--modes"),
                            QStringLiteral("random:%1").arg(modes),
                            QStringLiteral("--minibatches"),
                            QStringLiteral("40"),
                            QStringLiteral("--sim-speed"),
                            QStringLiteral("400"),
                            QStringLiteral("--json")} +
            extra;
    }
    QString fresh(const QString &name)
    {
        return m_dir.filePath(QStringLiteral("%1-%2").arg(name).arg(++m_runs));
    }

    // Every planned mode measured exactly once, nothing else measured.
    void verifyExactlyOnce(const QString &db, qint64 planned)
    {
        const Counts c = countsIn(db);
        QCOMPARE(c.planned, planned);
        QCOMPARE(c.done, planned);
        QCOMPARE(c.pending, 0);
        QCOMPARE(c.measurements, planned);
        QCOMPARE(c.distinctModes, planned);
        QCOMPARE(c.unplannedMeasurements, 0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
    }

    void thirtyModesAreStored()
    {
        const QString db = fresh(QStringLiteral("plain.sqlite"));
        const CliResult r = runCli(
            sweepArguments(db, 30, {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim"))}),
            180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(summary.value(QLatin1String("done")).toInt(), 30);
        QCOMPARE(summary.value(QLatin1String("failed")).toInt(), 0);
        QVERIFY(summary.value(QLatin1String("overhead_per_mode_s")).toDouble() > 0);
        verifyExactlyOnce(db, 30);
        QCOMPARE(countsIn(db).bootIds, 1);
        // the device's own spec, recorded once under its address (issue 22)
        auto connection = ptwb::SqliteConnection::open(db, false);
        QVERIFY(connection);
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM device_spec_history h JOIN device_specs s ON s.id = "
                     "h.spec_id WHERE h.device = 'sim:orin-agx' AND s.family = 'orin-agx'")),
                 qint64(1));
    }

    void faultsEndWithEveryModeMeasuredOnce_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<int>("minimumBootIds");
        QTest::newRow("dropped connection") << "drop-after:9" << 1;
        QTest::newRow("rebooted device") << "reboot-after:9" << 2;
    }

    void faultsEndWithEveryModeMeasuredOnce()
    {
        QFETCH(QString, fault);
        QFETCH(int, minimumBootIds);
        const QString db = fresh(QStringLiteral("fault.sqlite"));
        const CliResult r =
            runCli(sweepArguments(db, 16,
                                  {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
                                   QStringLiteral("--sim-fault"), fault}),
                   180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("reconnecting")), qPrintable(r.err));
        if (minimumBootIds > 1)
            QVERIFY2(r.err.contains(QLatin1String("rebooted")), qPrintable(r.err));
        verifyExactlyOnce(db, 16);
        QVERIFY(countsIn(db).bootIds >= minimumBootIds);
    }

    // Mode x inference batch: each mode applied once, then measured at every size in the order
    // given, through a dropped connection; stored as inference under the -inference name,
    // exported in the public inference layout; the store's workload then refuses training.
    void inferenceAtSeveralBatchSizes()
    {
        const QString db = fresh(QStringLiteral("infer.sqlite"));
        const QString state = fresh(QStringLiteral("sim"));
        QStringList arguments =
            sweepArguments(db, 3,
                           {QStringLiteral("--sim-state"), state, QStringLiteral("--inference"),
                            QStringLiteral("--batch-sizes"), QStringLiteral("16,1,4"),
                            QStringLiteral("--sim-fault"), QStringLiteral("drop-after:9")});
        arguments[arguments.indexOf(QStringLiteral("resnet18"))] =
            QStringLiteral("mobilenet_v3-inference");
        const CliResult r = runCli(arguments, 180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("reconnecting")), qPrintable(r.err));
        const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(summary.value(QLatin1String("done")).toInt(), 9);
        const Counts c = countsIn(db);
        QCOMPARE(c.planned, 9);
        QCOMPARE(c.measurements, 9);
        QCOMPARE(c.distinctModes, 3);
        QCOMPARE(c.unplannedMeasurements, 0);
        auto connection = ptwb::SqliteConnection::open(db, false);
        QVERIFY(connection);
        // every (mode, size) once, each measurement at its planned size, none training
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM (SELECT DISTINCT cores, cpu_khz, gpu_hz, emc_hz, "
                     "inference_batch FROM measurements)")),
                 9);
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM sweep_modes s JOIN measurements m ON m.id = "
                     "s.measurement_id WHERE m.inference_batch = s.batch_size AND "
                     "m.training_batch IS NULL")),
                 9);
        // the plan's order: 16, 1, 4 after each mode
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM sweep_modes WHERE batch_size = CASE position % 3 "
                     "WHEN 0 THEN 16 WHEN 1 THEN 1 ELSE 4 END")),
                 9);
        // a bigger batch takes longer in every mode (the simulated device's inference model)
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM measurements a JOIN measurements b ON a.cores = b.cores "
                     "AND a.cpu_khz = b.cpu_khz AND a.gpu_hz = b.gpu_hz AND a.emc_hz = b.emc_hz "
                     "WHERE a.inference_batch = 1 AND b.inference_batch = 16 AND b.time_ms > "
                     "a.time_ms")),
                 3);

        const QString csv = fresh(QStringLiteral("infer.csv"));
        const CliResult exported = runCli(
            {QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--workload"),
             QStringLiteral("mobilenet_v3-inference"), QStringLiteral("--out"), csv});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        // the public inference layout, with the peak the agent measured beside the median
        QCOMPARE(file.readLine(),
                 QByteArray("cores,cpu,gpu,mem,observed_time,bs,observed_power,peak_power\n"));
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM measurements WHERE peak_power_w >= power_w")),
                 9);

        // The same workload's training is refused before anything is planned.
        QStringList training =
            sweepArguments(db, 2,
                           {QStringLiteral("--sim-state"), state, QStringLiteral("--run"),
                            QStringLiteral("builtin:mobilenet_v3")});
        training[training.indexOf(QStringLiteral("resnet18"))] =
            QStringLiteral("mobilenet_v3-inference");
        const CliResult refused = runCli(training, 60000);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QLatin1String(
                     "--workload: workload 'mobilenet_v3-inference' on simulated-orin-agx holds "
                     "inference measurements; sweep its training under another workload name")),
                 qPrintable(refused.err));
        QCOMPARE(countsIn(db).planned, 9);

        // A list that does not parse, and a plan kind that chooses at one batch size.
        for (const auto &[sizes, modes] :
             {std::pair(QStringLiteral("8,eight"), QStringLiteral("random:2")),
              std::pair(QStringLiteral("8,16"), QStringLiteral("als:30"))}) {
            QStringList arguments = sweepArguments(db, 2, {QStringLiteral("--batch-sizes"), sizes});
            arguments[arguments.indexOf(QStringLiteral("random:2"))] = modes;
            const CliResult r = runCli(arguments, 60000);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QLatin1String("--batch-sizes: ")), qPrintable(r.err));
        }
        QCOMPARE(countsIn(db).planned, 9);
    }

    // A batch that does not fit fails as on a device (the simulated one runs out of memory at
    // 1024 for ResNet-18): reported with the workload's own words, never stored, never
    // retried, and that batch and larger ones are not profiled in the other modes.
    void aBatchThatDoesNotFitIsReportedNotStored()
    {
        const QString db = fresh(QStringLiteral("oom.sqlite"));
        const CliResult r = runCli(
            sweepArguments(db, 2,
                           {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
                            QStringLiteral("--batch-sizes"), QStringLiteral("16,1024,2048,8")}),
            120000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(!r.err.contains(QLatin1String("trying again")), qPrintable(r.err));
        const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(summary.value(QLatin1String("done")).toInt(), 4);
        QCOMPARE(summary.value(QLatin1String("failed")).toInt(), 4);
        auto connection = ptwb::SqliteConnection::open(db, false);
        QVERIFY(connection);
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM measurements WHERE training_batch IN (8, 16)")),
                 4);
        QCOMPARE(*connection->queryInt(QStringLiteral("SELECT count(*) FROM measurements")), 4);
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM sweep_modes WHERE state = 'failed' AND reason LIKE "
                     "'does not fit in the device''s memory: %CUDA out of memory: training "
                     "batch 1024 of resnet18 needs about%'")),
                 1);
        QCOMPARE(*connection->queryInt(QStringLiteral(
                     "SELECT count(*) FROM sweep_modes WHERE state = 'failed' AND attempts = 1 "
                     "AND batch_size >= 1024 AND reason LIKE 'not profiled: batch 1024 ran out "
                     "of memory%'")),
                 3);
    }

    // cap:WATTS over batch sizes: the largest batch first (out of memory: given up at once),
    // the GPU clock raised until the peak passes the cap, then the next batch from the highest
    // clock that fitted; one profile over the cap per batch, cores, CPU and memory at the top.
    void capSweepFollowsTheStudysLadder()
    {
        const QString db = fresh(QStringLiteral("cap.sqlite"));
        QStringList arguments =
            sweepArguments(db, 1,
                           {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
                            QStringLiteral("--batch-sizes"), QStringLiteral("8,1024,64")});
        arguments[arguments.indexOf(QStringLiteral("random:1"))] = QStringLiteral("cap:40");
        const CliResult r = runCli(arguments, 180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto connection = ptwb::SqliteConnection::open(db, false);
        QVERIFY(connection);
        const auto count = [&](const char *sql) {
            return *connection->queryInt(QString::fromLatin1(sql));
        };
        QCOMPARE(count("SELECT batch_size FROM sweep_modes WHERE position = 0"), 1024);
        QCOMPARE(count("SELECT count(*) FROM sweep_modes WHERE batch_size = 1024"), 1);
        QCOMPARE(count("SELECT count(*) FROM sweep_modes WHERE batch_size = 1024 AND state = "
                       "'failed' AND reason LIKE 'does not fit in the device''s memory%'"),
                 1);
        QCOMPARE(count("SELECT count(DISTINCT cores || '/' || cpu_khz || '/' || emc_hz) FROM "
                       "sweep_modes"),
                 1);
        for (int batch : {64, 8}) {
            const QString over =
                QStringLiteral("SELECT count(*) FROM measurements WHERE training_batch = %1 AND "
                               "peak_power_w > 40")
                    .arg(batch);
            QCOMPARE(*connection->queryInt(over), 1);
            // every clock below the one over the cap, from where the batch started, fitted
            const QString fits =
                QStringLiteral(
                    "SELECT count(*) FROM measurements WHERE training_batch = %1 AND peak_power_w "
                    "<= 40")
                    .arg(batch);
            QVERIFY(*connection->queryInt(fits) >= 1);
        }
        // batch 8 starts at batch 64's highest clock that fitted
        QCOMPARE(count("SELECT min(gpu_hz) FROM measurements WHERE training_batch = 8"),
                 count("SELECT max(gpu_hz) FROM measurements WHERE training_batch = 64 AND "
                       "peak_power_w <= 40"));
        QCOMPARE(count("SELECT count(*) FROM sweep_modes WHERE state = 'pending'"), 0);

        // without batch sizes there is nothing to climb
        QStringList plain = sweepArguments(db, 1);
        plain[plain.indexOf(QStringLiteral("random:1"))] = QStringLiteral("cap:40");
        const CliResult refused = runCli(plain, 60000);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QLatin1String("--batch-sizes: cap:WATTS finds")),
                 qPrintable(refused.err));
    }

    // A device that drops the connection during every profile makes no progress: it is given
    // up after five lost connections in a row, its modes stay pending, nothing is stored.
    void aDeviceThatDropsEveryProfileIsGivenUp()
    {
        const QString db = fresh(QStringLiteral("drops.sqlite"));
        // each connection: hello, hello (temperature), apply_mode, then profile is request 4
        const CliResult r =
            runCli(sweepArguments(db, 3,
                                  {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
                                   QStringLiteral("--sim-fault"), QStringLiteral("drop-after:4")}),
                   120000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("lost 5 times in a row with no mode measured in "
                                              "between")),
                 qPrintable(r.err));
        const Counts c = countsIn(db);
        QCOMPARE(c.measurements, 0);
        QCOMPARE(c.pending, 3);
    }

    void killedSweepResumesWithoutDuplicatesOrGaps()
    {
        const QString db = fresh(QStringLiteral("killed.sqlite"));
        const QString state = fresh(QStringLiteral("sim"));
        QProcess sweep;
        sweep.setProgram(QStringLiteral(PTWB_CLI));
        sweep.setArguments(sweepArguments(db, 30, {QStringLiteral("--sim-state"), state}));
        sweep.start();
        QVERIFY(sweep.waitForStarted());
        // Kill it once some modes are stored but not all.
        QTRY_VERIFY_WITH_TIMEOUT(countsIn(db).done >= 5, 120000);
        ::kill(pid_t(sweep.processId()), SIGKILL);
        sweep.waitForFinished();
        const Counts partial = countsIn(db);
        QVERIFY2(partial.pending > 0, "the sweep finished before it could be killed");
        QCOMPARE(partial.measurements, partial.done);

        const CliResult r = runCli(
            {QStringLiteral("sweep"), QStringLiteral("--db"), db, QStringLiteral("--target"),
             QStringLiteral("sim:orin-agx"), QStringLiteral("--workload"),
             QStringLiteral("resnet18"), QStringLiteral("--resume"), QStringLiteral("--sim-state"),
             state, QStringLiteral("--sim-speed"), QStringLiteral("400"), QStringLiteral("--json")},
            180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("%1 done").arg(partial.done)), qPrintable(r.err));
        verifyExactlyOnce(db, 30);
    }

    void twoDevicesShareOneSweep()
    {
        const QString db = fresh(QStringLiteral("fleet.sqlite"));
        QStringList arguments =
            sweepArguments(db, 40, {QStringLiteral("--sim-state"), fresh(QStringLiteral("fleet"))});
        arguments[arguments.indexOf(QStringLiteral("sim:orin-agx"))] =
            QStringLiteral("sim:orin-agx,sim:orin-agx");
        const CliResult r = runCli(arguments, 180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        verifyExactlyOnce(db, 40);
        auto connection = ptwb::SqliteConnection::open(db, false);
        QVERIFY(connection);
        // Both devices took part.
        QCOMPARE(
            *connection->queryInt(QStringLiteral("SELECT count(DISTINCT target) FROM sweep_modes")),
            2);
    }

    void rejectedModesAreRecordedAsFailed()
    {
        const QString db = fresh(QStringLiteral("reject.sqlite"));
        // Every mode with the top GPU clock is refused by the (simulated) kernel.
        const CliResult r = runCli(
            {QStringLiteral("sweep"), QStringLiteral("--db"), db, QStringLiteral("--target"),
             QStringLiteral("sim:orin-agx"), QStringLiteral("--workload"),
             QStringLiteral("resnet18"), QStringLiteral("--modes"),
             QStringLiteral("grid:cores=12;cpu=2201600;emc=3199000000"),
             QStringLiteral("--minibatches"), QStringLiteral("40"), QStringLiteral("--sim-speed"),
             QStringLiteral("400"), QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
             QStringLiteral("--sim-fault"), QStringLiteral("reject:gpu_hz=1236750000"),
             QStringLiteral("--json")},
            180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto connection = ptwb::SqliteConnection::open(db, false);
        QVERIFY(connection);
        QCOMPARE(*connection->queryInt(
                     QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'failed'")),
                 1);
        auto reason = connection->prepare(
            QStringLiteral("SELECT reason FROM sweep_modes WHERE state = 'failed'"));
        QVERIFY(reason && *reason->step());
        QVERIFY2(reason->columnText(0).contains(QLatin1String("gpu_hz")),
                 qPrintable(reason->columnText(0)));
        QCOMPARE(*connection->queryInt(QStringLiteral("SELECT count(*) FROM measurements")), 12);
    }

    // A device that accepts decreasing clock changes only: the runner takes the modes in
    // chains of falling clocks and reboots the device before each raise; those planned boot id
    // changes neither fail a mode nor measure one twice.
    void decreasingOnlyDeviceIsRebootedToRaiseClocks()
    {
        const QString db = fresh(QStringLiteral("decreasing.sqlite"));
        const CliResult r = runCli(
            sweepArguments(db, 12,
                           {QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
                            QStringLiteral("--sim-fault"), QStringLiteral("decreasing-only")}),
            180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("accepts decreasing mode changes only")),
                 qPrintable(r.err));
        const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(summary.value(QLatin1String("done")).toInt(), 12);
        QCOMPARE(summary.value(QLatin1String("failed")).toInt(), 0);
        const int reboots = summary.value(QLatin1String("planned_reboots")).toInt();
        QVERIFY2(reboots >= 1, qPrintable(r.out));
        QCOMPARE(r.err.count(QLatin1String("rebooting sim:orin-agx to raise clocks (device "
                                           "accepts decreasing changes only)")),
                 reboots);
        QCOMPARE(r.err.count(QLatin1String("is back from the planned reboot")), reboots);
        // Planned reboots are not interruptions: nothing was measured again or refused.
        QVERIFY2(!r.err.contains(QLatin1String("measured again")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QLatin1String(" failed: ")), qPrintable(r.err));
        verifyExactlyOnce(db, 12);
        QCOMPARE(countsIn(db).bootIds, qint64(reboots) + 1);
    }

    void applyOnADecreasingOnlyDeviceRaisesByRebootOnlyWhenAsked()
    {
        // ptwb apply is the window's ModeApplier. A device that raises clocks only after a
        // reboot takes a lower mode the usual way; a raise is refused, naming --by-reboot, and
        // with it the device reboots into the mode (confirmed after the reboot).
        const QString state = fresh(QStringLiteral("sim"));
        const QStringList device {QStringLiteral("--target"),    QStringLiteral("sim:orin-agx"),
                                  QStringLiteral("--sim-state"), state,
                                  QStringLiteral("--sim-fault"), QStringLiteral("decreasing-only"),
                                  QStringLiteral("--json")};
        const auto apply = [&device](const QString &mode, const QStringList &more = {}) {
            return runCli(QStringList {QStringLiteral("apply"), QStringLiteral("--mode"), mode} +
                              device + more,
                          60000);
        };
        const QString low = QStringLiteral("4/1036800/420750000/665600000");
        const QString high = QStringLiteral("8/1574400/828750000/3199000000");
        const CliResult lowered = apply(low);
        QVERIFY2(lowered.exitCode == 0, qPrintable(lowered.err));
        QVERIFY2(lowered.out.contains(QLatin1String("\"changed\":true")), qPrintable(lowered.out));

        const CliResult refused = apply(high);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(QLatin1String("--by-reboot")), qPrintable(refused.err));
        QVERIFY2(apply(low).out.contains(QLatin1String("\"changed\":false")), "it changed");

        const CliResult raised = apply(high, {QStringLiteral("--by-reboot")});
        QVERIFY2(raised.exitCode == 0, qPrintable(raised.err));
        QVERIFY2(raised.err.contains(QLatin1String("Rebooting")), qPrintable(raised.err));
        QVERIFY2(raised.out.contains(QLatin1String("\"confirmed\":true")), qPrintable(raised.out));
        const CliResult kept = apply(high);
        QVERIFY2(kept.out.contains(QLatin1String("\"changed\":false")),
                 qPrintable(kept.out + kept.err));
    }

    void adaptiveSweepGrowsByActiveLearning()
    {
        const QString db = fresh(QStringLiteral("als.sqlite"));
        const QString state = fresh(QStringLiteral("sim"));
        QStringList arguments = sweepArguments(db, 0, {QStringLiteral("--sim-state"), state});
        arguments[arguments.indexOf(QStringLiteral("random:0"))] = QStringLiteral("als:40");
        const CliResult r = runCli(arguments, 240000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // 20 random modes first, then two batches of 10 chosen from the predicted front.
        QCOMPARE(r.err.count(QLatin1String("more modes chosen by active learning")), 2);
        verifyExactlyOnce(db, 40);
        // Resuming a complete adaptive sweep adds nothing.
        const CliResult again =
            runCli({QStringLiteral("sweep"), QStringLiteral("--db"), db, QStringLiteral("--target"),
                    QStringLiteral("sim:orin-agx"), QStringLiteral("--workload"),
                    QStringLiteral("resnet18"), QStringLiteral("--resume"),
                    QStringLiteral("--sim-state"), state},
                   60000);
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        verifyExactlyOnce(db, 40);
    }

    void anUnreachableRealDeviceKeepsItsPlanUnderItsOwnName()
    {
        const QStringList sweep = {QStringLiteral("sweep"),
                                   QStringLiteral("--target"),
                                   QStringLiteral("ssh://nobody@127.0.0.1:1"),
                                   QStringLiteral("--workload"),
                                   QStringLiteral("resnet18"),
                                   QStringLiteral("--modes"),
                                   QStringLiteral("random:3"),
                                   QStringLiteral("--known-hosts"),
                                   fresh(QStringLiteral("known_hosts"))};
        // Port 1 refuses. Without --kind the device's tables are not known: nothing is planned.
        const QString unknown = fresh(QStringLiteral("unknown.sqlite"));
        const CliResult refused =
            runCli(sweep + QStringList {QStringLiteral("--db"), unknown}, 120000);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(QLatin1String("ssh://nobody@127.0.0.1:1")),
                 qPrintable(refused.err));
        QVERIFY(!QFileInfo::exists(unknown) || countRows(unknown, "sweeps") == 0);
        // With --kind the plan is stored in that kind's table, every connect fails, the sweep
        // stops resumable. Its measurements are a real device's: not filed under a simulated
        // one's name.
        const QString db = fresh(QStringLiteral("unreachable.sqlite"));
        const CliResult r =
            runCli(sweep +
                       QStringList {QStringLiteral("--db"), db, QStringLiteral("--kind"),
                                    QStringLiteral("orin-agx")},
                   120000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("given up")), qPrintable(r.err));
        QVERIFY2(r.out.contains(QLatin1String("--resume")), qPrintable(r.out));
        auto connection = ptwb::SqliteConnection::open(db, false);
        QVERIFY(connection);
        auto name = connection->prepare(
            QStringLiteral("SELECT d.name FROM sweeps s JOIN devices d ON d.id = s.device_id"));
        QVERIFY(name && *name->step());
        QCOMPARE(name->columnText(0), QStringLiteral("orin-agx"));
        QCOMPARE(*connection->queryInt(
                     QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'pending'")),
                 3);
    }

    void badModeSetIsBadInput()
    {
        const CliResult r = runCli({QStringLiteral("sweep"), QStringLiteral("--db"),
                                    fresh(QStringLiteral("bad.sqlite")), QStringLiteral("--target"),
                                    QStringLiteral("sim:orin-agx"), QStringLiteral("--workload"),
                                    QStringLiteral("resnet18"), QStringLiteral("--modes"),
                                    QStringLiteral("random:0")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--modes: 'random:0'")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "test_sweep.moc"
