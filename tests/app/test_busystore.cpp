// A busy or failing store under `ptwb sweep` (the simulated Jetson) and `ptwb import`: another
// process holding the write lock past the busy timeout, a store file ptwb may not write, a full
// disk (RLIMIT_FSIZE on the child). Each time nothing measured is lost (a mode whose result
// could not be stored stays pending, an import is all or nothing), the output says what happened,
// the exit status is not 0, and the store opens afterwards with PRAGMA integrity_check ok
// (issue 21).
#include "clirunner.h"
#include "modes/devicespec.h"
#include "store/sqlite.h"
#include "store/store.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <csignal>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// Holds the write lock of `db` (BEGIN IMMEDIATE) from when it prints "locked" until a line
// arrives on its stdin.
const char *const kLocker = R"(
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
connection.execute("ROLLBACK")
)";

qint64 query(const QString &db, const QString &sql)
{
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return -1;
    const ptwb::Expected<qint64> value = connection->queryInt(sql);
    return value ? *value : -1;
}

QString integrity(const QString &db)
{
    auto connection = ptwb::SqliteConnection::open(db, false);
    if (!connection)
        return connection.error();
    auto statement = connection->prepare(QStringLiteral("PRAGMA integrity_check"));
    if (!statement)
        return statement.error();
    const ptwb::Expected<bool> row = statement->step();
    return row && *row ? statement->columnText(0) : QStringLiteral("no answer");
}

// A CSV of `rows` distinct AGX Orin modes.
QByteArray manyRows(int rows)
{
    const ptwb::DeviceSpec spec = ptwb::DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
    QByteArray csv = "cores,cpu,gpu,mem,observed_time,observed_power\n";
    int written = 0;
    for (qint64 emc : spec.values(ptwb::Dimension::Emc)) {
        for (qint64 gpu : spec.values(ptwb::Dimension::Gpu)) {
            for (qint64 cpu : spec.values(ptwb::Dimension::Cpu)) {
                for (int cores = spec.minCores(); cores <= spec.maxCores(); ++cores) {
                    if (written++ == rows)
                        return csv;
                    csv += QByteArray::number(cores) + ',' + QByteArray::number(cpu) + ',' +
                        QByteArray::number(gpu) + ',' + QByteArray::number(emc) + ",100.5,20.25\n";
                }
            }
        }
    }
    return csv;
}

}  // namespace

class TestBusyStore : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;

    QString fresh(const QString &name)
    {
        return m_dir.filePath(QStringLiteral("%1-%2").arg(++m_runs).arg(name));
    }

    QStringList sweepArguments(const QString &db, int modes, const QString &speed)
    {
        return {QStringLiteral("sweep"),
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
                speed,
                QStringLiteral("--sim-state"),
                fresh(QStringLiteral("sim"))};
    }

    // A store with its schema, closed (no -wal left), for a child to fill.
    QString emptyStore(const QString &name)
    {
        const QString db = fresh(name);
        auto store = ptwb::Store::open(db);
        return store ? db : QString();
    }

    // ptwb run with at most `bytes` per file it writes (a full disk as SQLite sees it: a write
    // past the limit fails with EFBIG instead of killing the process).
    CliResult runWithFileSizeLimit(const QStringList &arguments, rlim_t bytes)
    {
        QProcess process;
        process.setProgram(QStringLiteral(PTWB_CLI));
        process.setArguments(arguments);
        process.setChildProcessModifier([bytes] {
            ::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit {bytes, bytes};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
        return finish(process, 180000);
    }

    static CliResult finish(QProcess &process, int timeoutMs)
    {
        process.start();
        CliResult result;
        if (!process.waitForFinished(timeoutMs)) {
            process.kill();
            process.waitForFinished();
            result.err = QStringLiteral("did not finish");
            return result;
        }
        result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        result.out = QString::fromUtf8(process.readAllStandardOutput());
        result.err = QString::fromUtf8(process.readAllStandardError());
        return result;
    }

    void startLocker(QProcess &locker, const QString &db)
    {
        locker.start(QStringLiteral("python3"),
                     {QStringLiteral("-c"), QString::fromLatin1(kLocker), db});
        QVERIFY(locker.waitForStarted());
        QVERIFY(locker.waitForReadyRead(30000));
        QCOMPARE(locker.readLine().trimmed(), QByteArray("locked"));
    }

    static void release(QProcess &locker)
    {
        locker.write("\n");
        locker.closeWriteChannel();
        locker.waitForFinished(30000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
    }

    // Another process takes the write lock once the sweep has stored a mode, and holds it past
    // the busy timeout and every retry: the mode in flight stays pending, the sweep is stored
    // interrupted with the reason, ptwb exits 1; --resume then measures exactly what is left.
    void sweepWhileAnotherProcessHoldsTheWriteLock()
    {
        const QString db = emptyStore(QStringLiteral("locked-sweep.sqlite"));
        QVERIFY(!db.isEmpty());
        QProcess sweep;
        sweep.setProgram(QStringLiteral(PTWB_CLI));
        QStringList arguments = sweepArguments(db, 6, QStringLiteral("100"));
        sweep.setArguments(arguments);
        sweep.start();
        QVERIFY(sweep.waitForStarted());
        const QString doneSql =
            QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'done'");
        QTRY_VERIFY_WITH_TIMEOUT(query(db, doneSql) >= 1, 120000);
        QProcess locker;
        startLocker(locker, db);
        // Released once ptwb has given up on the mode (so that it can mark the sweep).
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT(
            (err += sweep.readAllStandardError()).contains("could not be stored") ||
                sweep.state() == QProcess::NotRunning,
            120000);
        const qint64 doneWhileLocked = query(db, doneSql);
        release(locker);
        QVERIFY(sweep.waitForFinished(120000));
        err += sweep.readAllStandardError();
        const QString out = QString::fromUtf8(sweep.readAllStandardOutput());
        QVERIFY2(sweep.exitCode() == 1, qPrintable(QString::fromUtf8(err)));
        QVERIFY2(
            out.contains(QLatin1String("interrupted (store write failed: database is locked)")),
            qPrintable(out + QString::fromUtf8(err)));
        QVERIFY2(out.contains(QLatin1String("still pending")), qPrintable(out));
        QVERIFY2(err.contains("trying again"), err.constData());
        QCOMPARE(integrity(db), QStringLiteral("ok"));
        const qint64 done = query(db, doneSql);
        QCOMPARE(done, doneWhileLocked);
        QVERIFY(done < 6);
        QCOMPARE(query(db, QStringLiteral("SELECT count(*) FROM measurements")), done);
        QCOMPARE(query(db,
                       QStringLiteral("SELECT count(*) FROM sweeps WHERE state = "
                                      "'interrupted'")),
                 1);

        // Nothing was lost: the rest is measured by --resume, each mode once.
        arguments[arguments.indexOf(QStringLiteral("--modes")) + 1] = QString();
        arguments.removeAll(QString());
        arguments.removeAll(QStringLiteral("--modes"));
        arguments << QStringLiteral("--resume");
        const CliResult resumed = runCli(arguments, 180000);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(query(db, doneSql), 6);
        QCOMPARE(query(db, QStringLiteral("SELECT count(*) FROM measurements")), 6);
    }

    // The lock held for the whole import: it fails after the busy timeout, saying so, and
    // stores nothing.
    void importWhileAnotherProcessHoldsTheWriteLock()
    {
        const QString db = emptyStore(QStringLiteral("locked-import.sqlite"));
        const QString csv = fresh(QStringLiteral("rows.csv"));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(manyRows(20));
        file.close();
        QProcess locker;
        startLocker(locker, db);
        const CliResult r = runCli({QStringLiteral("import"), csv, QStringLiteral("--db"), db,
                                    QStringLiteral("--device"), QStringLiteral("orin-agx"),
                                    QStringLiteral("--workload"), QStringLiteral("w")});
        release(locker);
        QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
        QVERIFY2(r.err.contains(QLatin1String("database is locked")), qPrintable(r.err));
        QCOMPARE(integrity(db), QStringLiteral("ok"));
        QCOMPARE(query(db, QStringLiteral("SELECT count(*) FROM measurements")), 0);
    }

    // A store file ptwb may not write: a clear error naming it, the file unchanged. Root writes
    // any file, so as root ptwb runs as nobody.
    void aStoreThatCannotBeWritten()
    {
        const QString directory = fresh(QStringLiteral("readonly"));
        QVERIFY(QDir().mkpath(directory));
        const QString db = directory + QStringLiteral("/store.sqlite");
        QVERIFY(ptwb::Store::open(db));
        const QString csv = directory + QStringLiteral("/rows.csv");
        QFile file(csv);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(manyRows(5));
        file.close();
        const QByteArray before = [&] {
            QFile f(db);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        QVERIFY(::chmod(qPrintable(db), 0444) == 0);
        QVERIFY(::chmod(qPrintable(csv), 0444) == 0);
        uid_t uid = ::geteuid();
        gid_t gid = ::getegid();
        if (uid == 0) {
            const passwd *nobody = ::getpwnam("nobody");
            if (!nobody)
                QSKIP("running as root without a 'nobody' user: root writes any file");
            uid = nobody->pw_uid;
            gid = nobody->pw_gid;
            // nobody reaches the directory (read, not write) and the program
            QVERIFY(::chmod(qPrintable(directory), 0555) == 0);
            QVERIFY(::chmod(qPrintable(m_dir.path()), 0755) == 0);
        }
        for (const QStringList &arguments :
             {QStringList {QStringLiteral("import"), csv, QStringLiteral("--db"), db,
                           QStringLiteral("--device"), QStringLiteral("orin-agx"),
                           QStringLiteral("--workload"), QStringLiteral("w")},
              sweepArguments(db, 3, QStringLiteral("400"))}) {
            QProcess process;
            process.setProgram(QStringLiteral(PTWB_CLI));
            process.setArguments(arguments);
            if (uid != ::geteuid()) {
                process.setChildProcessModifier([uid, gid] {
                    if (::setgid(gid) != 0 || ::setuid(uid) != 0)
                        ::_exit(97);
                });
            }
            const CliResult r = finish(process, 120000);
            QVERIFY2(r.exitCode != 97, "could not become nobody");
            QVERIFY2(r.exitCode == 1, qPrintable(arguments.first() + r.out + r.err));
            QVERIFY2(r.err.contains(db) || r.err.contains(QLatin1String("readonly")) ||
                         r.err.contains(QLatin1String("read-only")),
                     qPrintable(r.err));
        }
        QVERIFY(::chmod(qPrintable(directory), 0755) == 0);
        QFile after(db);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), before);
        QCOMPARE(integrity(db), QStringLiteral("ok"));
    }

    // A disk that fills during an import: nothing of it is stored (one transaction), and
    // ptwb says why.
    void importOntoAFullDisk()
    {
        const QString db = emptyStore(QStringLiteral("full-import.sqlite"));
        const QString csv = fresh(QStringLiteral("rows.csv"));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(manyRows(4000));
        file.close();
        const CliResult r = runWithFileSizeLimit(
            {QStringLiteral("import"), csv, QStringLiteral("--db"), db, QStringLiteral("--device"),
             QStringLiteral("orin-agx"), QStringLiteral("--workload"), QStringLiteral("w")},
            96 * 1024);
        QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
        QVERIFY2(r.err.contains(QLatin1String("disk")), qPrintable(r.err));
        QCOMPARE(integrity(db), QStringLiteral("ok"));
        QCOMPARE(query(db, QStringLiteral("SELECT count(*) FROM measurements")), 0);
    }

    // A disk that fills during a sweep: what was stored stays, the mode whose result did not fit
    // stays pending with the rest, ptwb exits 1 saying so.
    void sweepOntoAFullDisk()
    {
        const QString db = emptyStore(QStringLiteral("full-sweep.sqlite"));
        const CliResult r =
            runWithFileSizeLimit(sweepArguments(db, 12, QStringLiteral("400")), 128 * 1024);
        QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
        QVERIFY2((r.out + r.err).contains(QLatin1String("store write failed")),
                 qPrintable(r.out + r.err));
        QCOMPARE(integrity(db), QStringLiteral("ok"));
        const qint64 planned = query(db, QStringLiteral("SELECT count(*) FROM sweep_modes"));
        const qint64 done =
            query(db, QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'done'"));
        const qint64 pending =
            query(db, QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'pending'"));
        QCOMPARE(planned, 12);
        QVERIFY2(pending >= 1, qPrintable(r.out + r.err));
        QCOMPARE(done + pending, 12);
        QCOMPARE(query(db, QStringLiteral("SELECT count(*) FROM measurements")), done);
    }
};

QTEST_GUILESS_MAIN(TestBusyStore)
#include "test_busystore.moc"
