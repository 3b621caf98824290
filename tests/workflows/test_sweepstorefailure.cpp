// A store that cannot be written during a sweep (another connection holding the write lock past
// the busy timeout): the mode whose result could not be stored stays pending, the sweep ends
// interrupted and says why, and "complete" is what the store holds, not what the run's queue
// says (issue 21, finding 5).
#include "store/sqlite.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweeplaunch.h"
#include "sweeprunner.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::workflows;

class TestSweepStoreFailure : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
    }

    void init()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("db-%1.sqlite").arg(++m_runs));
        auto store = Store::open(m_path);
        QVERIFY(store);
        m_store = std::move(store).value();
        // Fails fast instead of after SQLite's 5 s (a pragma that any version takes).
        QVERIFY(m_store->connection().exec(QStringLiteral("PRAGMA busy_timeout = 100")));
        ConnectionOptions options;
        options.simulatorState = m_dir.filePath(QStringLiteral("sim-%1").arg(m_runs));
        options.simulatorSpeed = 400;
        m_device = endpoint(QStringLiteral("sim:orin-agx"), options).value();
        auto locker = SqliteConnection::open(m_path, false);
        QVERIFY(locker);
        m_locker = std::move(locker).value();
    }

    void cleanup()
    {
        m_locker = SqliteConnection();
        m_store.reset();
    }

    void aMeasurementThatCannotBeStoredStaysPending()
    {
        const Expected<qint64> id = planSweep(*m_store, request(4), {m_device});
        QVERIFY2(id, qPrintable(id.error()));
        Expected<std::unique_ptr<SweepRunner>> runner = sweepRunner(*m_store, *id, {m_device});
        QVERIFY2(runner, qPrintable(runner.error()));
        bool locked = false;
        bool released = false;
        QStringList messages;
        // Another writer takes the lock once the first mode is stored, and keeps it until the
        // runner has given up on the next one.
        connect(runner->get(), &SweepRunner::itemRecorded, this, [&] {
            if (!locked)
                locked = m_locker.exec(QStringLiteral("BEGIN IMMEDIATE")).ok();
        });
        connect(runner->get(), &SweepRunner::message, this, [&](const QString &text) {
            messages.append(text);
            if (locked && !released && text.contains(QLatin1String("could not be stored"))) {
                m_locker.rollback();
                released = true;
            }
        });
        QSignalSpy finished(runner->get(), &SweepRunner::finished);
        (*runner)->start();
        QVERIFY(finished.wait(120000));
        if (locked && !released)
            m_locker.rollback();
        QVERIFY(locked);
        const bool complete = finished.first().at(0).toBool();
        const QString summary = finished.first().at(1).toString();
        QVERIFY2(!complete, qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("interrupted (store write failed: database is "
                                                "locked")),
                 qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("1 measured, 0 failed, 3 still pending")),
                 qPrintable(summary));
        // It was tried again before the sweep stopped.
        QVERIFY2(messages.join('\n').contains(QLatin1String("trying again")),
                 qPrintable(messages.join('\n')));

        const Expected<SweepRecord> record = SweepStore(*m_store).load(*id);
        QVERIFY(record);
        QCOMPARE(record->state, SweepState::Interrupted);
        QCOMPARE(record->count(SweepItem::State::Done), 1);
        QCOMPARE(record->count(SweepItem::State::Pending), 3);
        QCOMPARE(*m_store->connection().queryInt(QStringLiteral("SELECT count(*) FROM "
                                                                "measurements")),
                 qint64(1));
    }

    void aStoreLockedFromTheStartMeasuresNothing()
    {
        const Expected<qint64> id = planSweep(*m_store, request(3), {m_device});
        QVERIFY2(id, qPrintable(id.error()));
        Expected<std::unique_ptr<SweepRunner>> runner = sweepRunner(*m_store, *id, {m_device});
        QVERIFY2(runner, qPrintable(runner.error()));
        int profiled = 0;
        connect(runner->get(), &SweepRunner::profileEvent, this, [&] { ++profiled; });
        QVERIFY(m_locker.exec(QStringLiteral("BEGIN IMMEDIATE")));
        QSignalSpy finished(runner->get(), &SweepRunner::finished);
        (*runner)->start();
        if (finished.isEmpty())
            QVERIFY(finished.wait(120000));
        m_locker.rollback();
        const QString summary = finished.first().at(1).toString();
        QVERIFY2(!finished.first().at(0).toBool(), qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("3 still pending")), qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("store write failed")), qPrintable(summary));
        QCOMPARE(profiled, 0);  // no device time spent on results that could not be kept
        const Expected<SweepRecord> record = SweepStore(*m_store).load(*id);
        QVERIFY(record);
        QCOMPARE(record->count(SweepItem::State::Pending), 3);
    }

private:
    static SweepRequest request(int modes)
    {
        SweepRequest r;
        r.workload = QStringLiteral("resnet18");
        r.modeSet = QStringLiteral("random:%1").arg(modes);
        r.minibatches = 30;
        r.seed = 11;
        return r;
    }

    QTemporaryDir m_dir;
    int m_runs = 0;
    QString m_path;
    std::unique_ptr<Store> m_store;
    SqliteConnection m_locker;
    DeviceEndpoint m_device;
};

QTEST_GUILESS_MAIN(TestSweepStoreFailure)
#include "test_sweepstorefailure.moc"
