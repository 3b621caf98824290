// A child process importing a large file is killed with SIGKILL part-way: afterwards the
// database must pass integrity_check and hold the import wholly or not at all.
#include "clirunner.h"
#include "modes/modespace.h"

#include <QFile>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <csignal>

using namespace ptwb;

namespace {

constexpr int kRepeats = 20;  // 20 x 18,096 modes = 361,920 rows

QString writeLargeCsv(const QTemporaryDir &dir, qint64 *rows)
{
    const ModeSpace space(DeviceSpec::builtin(QStringLiteral("orin-agx")).value());
    QByteArray data = "cores,cpu,gpu,mem,observed_time,observed_power\n";
    data.reserve(space.size() * kRepeats * 56);
    for (int r = 0; r < kRepeats; ++r) {
        for (qint64 i = 0; i < space.size(); ++i) {
            const PowerMode mode = space.mode(i);
            data += QByteArray::number(mode.cores) + ',' + QByteArray::number(mode.cpuKHz) + ',' +
                QByteArray::number(mode.gpuHz) + ',' + QByteArray::number(mode.emcHz) + ',' +
                QByteArray::number(100.0 + i * 0.01 + r, 'g', 17) + ',' +
                QByteArray::number(10.0 + r * 0.5, 'g', 17) + '\n';
        }
    }
    *rows = space.size() * kRepeats;
    const QString path = dir.filePath(QStringLiteral("large.csv"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

struct DbState
{
    QString integrity;
    qint64 measurements = -1;
    qint64 imports = -1;
};

DbState inspect(const QString &path)
{
    DbState state;
    sqlite3 *db = nullptr;
    if (sqlite3_open(QFile::encodeName(path).constData(), &db) != SQLITE_OK)
        return state;
    const auto query = [db](const char *sql, QString *text, qint64 *number) {
        sqlite3_stmt *statement = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_ROW) {
            if (text)
                *text = QString::fromUtf8(
                    reinterpret_cast<const char *>(sqlite3_column_text(statement, 0)));
            if (number)
                *number = sqlite3_column_int64(statement, 0);
        }
        sqlite3_finalize(statement);
    };
    query("PRAGMA integrity_check", &state.integrity, nullptr);
    query("SELECT count(*) FROM measurements m JOIN workloads w ON w.id = m.workload_id "
          "WHERE w.name = 'large'",
          nullptr, &state.measurements);
    query("SELECT count(*) FROM imports", nullptr, &state.imports);
    sqlite3_close(db);
    return state;
}

QStringList importArguments(const QString &csv, const QString &db, const QString &workload)
{
    return {QStringLiteral("import"),     csv,
            QStringLiteral("--db"),       db,
            QStringLiteral("--device"),   QStringLiteral("orin-agx"),
            QStringLiteral("--workload"), workload,
            QStringLiteral("--progress")};
}

}  // namespace

class TestCrashSafety : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void killedImportIsAllOrNothing_data()
    {
        QTest::addColumn<int>("progressLinesBeforeKill");
        QTest::newRow("after the first 1000 rows") << 1;
        QTest::newRow("a tenth of the way") << 36;
        QTest::newRow("a third of the way") << 120;
    }

    void killedImportIsAllOrNothing()
    {
        QFETCH(int, progressLinesBeforeKill);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        qint64 rows = 0;
        const QString csv = writeLargeCsv(dir, &rows);

        // Something already stored must survive the crash untouched.
        const QString small = dir.filePath(QStringLiteral("small.csv"));
        {
            QFile file(small);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("cores,cpu,gpu,mem,observed_time,observed_power\n"
                       "12,2201600,1300500000,3199000000,100,40\n");
        }
        QCOMPARE(runCli({QStringLiteral("import"), small, QStringLiteral("--db"), db,
                         QStringLiteral("--device"), QStringLiteral("orin-agx"),
                         QStringLiteral("--workload"), QStringLiteral("small")})
                     .exitCode,
                 0);

        QProcess child;
        child.setProgram(QStringLiteral(PTWB_CLI));
        child.setArguments(importArguments(csv, db, QStringLiteral("large")));
        child.start();
        QVERIFY(child.waitForStarted());
        int seen = 0;
        QByteArray pending;
        bool killed = false;
        while (!killed && child.state() == QProcess::Running) {
            child.waitForReadyRead(200);
            pending += child.readAllStandardError();
            seen = int(pending.count("stored "));
            if (seen >= progressLinesBeforeKill) {
                ::kill(pid_t(child.processId()), SIGKILL);
                killed = true;
            }
        }
        QVERIFY2(killed, "the import finished before it could be killed; use a larger file");
        QVERIFY(child.waitForFinished(10000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);

        const DbState after = inspect(db);
        QCOMPARE(after.integrity, QStringLiteral("ok"));
        QVERIFY2(
            after.measurements == 0 || after.measurements == rows,
            qPrintable(QStringLiteral("%1 of %2 rows present").arg(after.measurements).arg(rows)));
        QCOMPARE(after.imports, after.measurements == 0 ? qint64(1) : qint64(2));

        // The store is usable afterwards and the same import now completes.
        const CliResult again = runCli(importArguments(csv, db, QStringLiteral("large")), 120000);
        QCOMPARE(again.exitCode, 0);
        const DbState finished = inspect(db);
        QCOMPARE(finished.integrity, QStringLiteral("ok"));
        QCOMPARE(finished.measurements, rows);
        QCOMPARE(finished.imports, qint64(2));
    }
};

QTEST_GUILESS_MAIN(TestCrashSafety)
#include "test_crashsafety.moc"
