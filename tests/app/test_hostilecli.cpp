// `ptwb` against the hostile simulated device (docs/simulator.md, "A hostile device"): every
// case ends with a clear message and a sensible exit code, the process's memory bounded
// (VmHWM of the ptwb child, read from /proc while it runs), nothing a terminal would act on in
// its output, and the store intact (issue 21; docs/ssh.md, "What a hostile device can and cannot
// do to the desktop").
#include "remote/procmemory.h"
#include "storequery.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

// The most ptwb may reach (its peak resident size) on a hostile device. A normal sweep peaks
// near 60 MB; before the fix a line flood grew it by about 100 MB a second.
constexpr qint64 kBoundKiB = 300 * 1024;

struct Run
{
    int exitCode = -1;
    bool crashed = false;
    bool killed = false;  // over the bound or the time limit
    qint64 peakKiB = 0;
    QByteArray out;
    QByteArray err;
};

void keep(QByteArray &kept, const QByteArray &more)
{
    kept += more.left(qMax<qsizetype>(0, (1 << 20) - kept.size()));
}

// Runs ptwb, polling its VmHWM; killed when it passes the bound (so an unfixed build fails the
// test instead of eating the machine) or after timeoutMs.
Run runMeasured(const QStringList &arguments, int timeoutMs = 120000)
{
    Run run;
    QProcess process;
    // PTWB_TEST_CLI: another ptwb to try the suite on (an older build, to see it fail there;
    // with PTWB_REMOTE_DIR naming this tree's remote/ for the hostile simulator)
    const QString cli = qEnvironmentVariable("PTWB_TEST_CLI", QStringLiteral(PTWB_CLI));
    process.start(cli, arguments);
    if (!process.waitForStarted(10000))
        return run;
    process.closeWriteChannel();
    const QString pid = QString::number(process.processId());
    QElapsedTimer clock;
    clock.start();
    while (!process.waitForFinished(50)) {
        run.peakKiB = qMax(run.peakKiB, procStatusKiB(pid, "VmHWM"));
        // keep the pipes drained (a flood of output must not stall the child) and this
        // process small: the first MiB of each is kept
        keep(run.out, process.readAllStandardOutput());
        keep(run.err, process.readAllStandardError());
        if (run.peakKiB > kBoundKiB || clock.elapsed() > timeoutMs) {
            run.killed = true;
            process.kill();
            process.waitForFinished();
            break;
        }
    }
    keep(run.out, process.readAllStandardOutput());
    keep(run.err, process.readAllStandardError());
    run.crashed = process.exitStatus() != QProcess::NormalExit && !run.killed;
    run.exitCode = process.exitCode();
    return run;
}

bool terminalClean(const QByteArray &bytes, QString *found)
{
    // ESC, BEL (ends OSC), CR, DEL, C1 CSI/OSC in UTF-8, and the bidi overrides
    const QList<QByteArray> bad {"\x1b",     "\x07",     "\r",           "\x7f",
                                 "\xc2\x9b", "\xc2\x9d", "\xe2\x80\xae", "\xe2\x80\xad"};
    for (const QByteArray &b : bad) {
        if (bytes.contains(b)) {
            *found = QString::fromLatin1(b.toHex());
            return false;
        }
    }
    return true;
}

}  // namespace

class TestHostileCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    QString fresh(const QString &name)
    {
        return m_dir.filePath(QStringLiteral("%1-%2").arg(name).arg(++m_runs));
    }

    QStringList sweep(const QString &db, const QString &hostileCase)
    {
        return {QStringLiteral("sweep"),
                QStringLiteral("--db"),
                db,
                QStringLiteral("--target"),
                QStringLiteral("sim:orin-agx"),
                QStringLiteral("--workload"),
                QStringLiteral("resnet18"),
                QStringLiteral("--modes"),
                QStringLiteral("random:3"),
                QStringLiteral("--minibatches"),
                QStringLiteral("20"),
                QStringLiteral("--sim-speed"),
                QStringLiteral("400"),
                QStringLiteral("--sim-state"),
                fresh(QStringLiteral("sim")),
                QStringLiteral("--sim-fault"),
                QStringLiteral("hostile:") + hostileCase};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
    }

    void sweepOnAHostileDevice_data()
    {
        QTest::addColumn<QString>("hostileCase");
        QTest::addColumn<QString>("says");  // what stderr must say (empty: nothing particular)
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<int>("done");  // modes measured, of 3
        QTest::addColumn<int>("timeoutMs");
        const QString dropped = QStringLiteral("not protocol lines");
        QTest::newRow("line-flood") << QStringLiteral("line-flood") << dropped << 1 << 0 << 120000;
        QTest::newRow("line-flood after hello")
            << QStringLiteral("line-flood@1") << dropped << 1 << 0 << 120000;
        QTest::newRow("endless-line")
            << QStringLiteral("endless-line") << dropped << 1 << 0 << 120000;
        QTest::newRow("endless-line after hello")
            << QStringLiteral("endless-line@1") << dropped << 1 << 0 << 120000;
        // the first reply after hello is an error full of escapes: that mode fails, shown
        // escaped; the others are measured
        QTest::newRow("terminal-escapes") << QStringLiteral("terminal-escapes")
                                          << QStringLiteral("\\x1b]52;") << 0 << 2 << 120000;
        QTest::newRow("rich-text") << QStringLiteral("rich-text") << QString() << 0 << 3 << 120000;
        QTest::newRow("wrong-types")
            << QStringLiteral("wrong-types") << QStringLiteral("hello failed: bad_reply") << 1 << 0
            << 120000;
        QTest::newRow("wrong-types after hello")
            << QStringLiteral("wrong-types@1") << QStringLiteral("given up") << 1 << 0 << 120000;
        QTest::newRow("duplicate-replies")
            << QStringLiteral("duplicate-replies") << QStringLiteral("no request in flight") << 0
            << 3 << 120000;
        QTest::newRow("out-of-order-replies")
            << QStringLiteral("out-of-order-replies") << QString() << 0 << 3 << 120000;
        QTest::newRow("unsolicited-reply") << QStringLiteral("unsolicited-reply")
                                           << QStringLiteral("never sent") << 0 << 3 << 120000;
        QTest::newRow("endless-events after hello")
            << QStringLiteral("endless-events@1") << QStringLiteral("given up") << 1 << 0 << 180000;
        // Absurd numbers: every profile reply carries one, so every mode fails with what was
        // wrong (1e999 and NaN, not JSON, reach their call as text: "expected a number"); the
        // sweep is complete, nothing pending, within seconds rather than a timeout, and exits 1:
        // nothing could be measured.
        QTest::newRow("absurd-numbers after hello")
            << QStringLiteral("absurd-numbers@1")
            << QStringLiteral("'time_ms.median': expected a number") << 1 << 0 << 45000;
    }

    void sweepOnAHostileDevice()
    {
        QFETCH(QString, hostileCase);
        QFETCH(QString, says);
        QFETCH(int, exitCode);
        QFETCH(int, done);
        QFETCH(int, timeoutMs);
        const QString db = fresh(QStringLiteral("hostile.sqlite"));
        const Run run = runMeasured(sweep(db, hostileCase), timeoutMs);
        const QString err = QString::fromUtf8(run.err);
        qInfo("%s: exit %d, peak %lld KiB, %lld bytes on stderr", qPrintable(hostileCase),
              run.exitCode, run.peakKiB, qint64(run.err.size()));
        QVERIFY2(run.peakKiB > 0 && run.peakKiB < kBoundKiB,
                 qPrintable(QStringLiteral("peak %1 KiB").arg(run.peakKiB)));
        QString found;
        QVERIFY2(terminalClean(run.out, &found), qPrintable(QStringLiteral("stdout has ") + found));
        QVERIFY2(terminalClean(run.err, &found), qPrintable(QStringLiteral("stderr has ") + found));
        // The store is intact; what was measured is stored once.
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM pragma_integrity_check WHERE "
                                         "integrity_check = 'ok'")),
                 qint64(1));
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM sweep_modes")), qint64(3));
        const qint64 measured =
            queryInt(db, QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'done'"));
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM measurements")), measured);
        QVERIFY2(!run.killed,
                 qPrintable(QStringLiteral("did not end in %1 s: %2")
                                .arg(timeoutMs / 1000)
                                .arg(err.right(1000))));
        QVERIFY2(!run.crashed, qPrintable(err.right(2000)));
        QVERIFY2(run.exitCode == exitCode,
                 qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(err.right(2000))));
        QCOMPARE(measured, qint64(done));
        if (!says.isEmpty())
            QVERIFY2(err.contains(says), qPrintable(err.right(2000)));
        // a clear message, not a flood: a few dozen lines at most
        QVERIFY2(run.err.count('\n') < 60, qPrintable(err.right(3000)));
    }

    // ptwb apply prints the device's error text: terminal-safe.
    void applyPrintsDeviceErrorsSafely()
    {
        const Run run = runMeasured(
            {QStringLiteral("apply"), QStringLiteral("--target"), QStringLiteral("sim:orin-agx"),
             QStringLiteral("--mode"), QStringLiteral("7/729600/624750000/3199000000"),
             QStringLiteral("--sim-state"), fresh(QStringLiteral("sim")),
             QStringLiteral("--sim-fault"), QStringLiteral("hostile:terminal-escapes")});
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(!run.killed && !run.crashed, qPrintable(err));
        // arming the revert fails with the device's error: shown, escaped
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(err.contains(QLatin1String("\\x1b]52;")), qPrintable(err));
        QString found;
        QVERIFY2(terminalClean(run.out, &found), qPrintable(found));
        QVERIFY2(terminalClean(run.err, &found), qPrintable(found));
    }
};

QTEST_GUILESS_MAIN(TestHostileCli)
#include "test_hostilecli.moc"
