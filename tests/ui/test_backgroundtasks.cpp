#include "backgroundtasks.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>

#include <atomic>
#include <memory>
#include <thread>

using namespace ptwb::ui;

namespace {

constexpr int kTimeout = 10000;

// Blocks a task until the test opens it.
struct Gate
{
    std::atomic<bool> open {false};
    void wait() const
    {
        while (!open.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
};

}  // namespace

class TestBackgroundTasks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void deliversTheResultOnTheOwnersThread()
    {
        BackgroundTasks tasks;
        Qt::HANDLE workThread = nullptr;
        Qt::HANDLE showThread = nullptr;
        int shown = 0;
        tasks.run(
            QStringLiteral("sum"),
            [&workThread](const TaskContext &) {
                workThread = QThread::currentThreadId();
                return 21 * 2;
            },
            [&](int value) {
                showThread = QThread::currentThreadId();
                shown = value;
            });
        QTRY_COMPARE_WITH_TIMEOUT(shown, 42, kTimeout);
        QVERIFY(workThread != QThread::currentThreadId());
        QCOMPARE(showThread, QThread::currentThreadId());
        QTRY_COMPARE(tasks.runningCount(), 0);
    }

    void aNewerTaskOfTheSameKeyDropsTheOlderResult()
    {
        BackgroundTasks tasks;
        auto gate = std::make_shared<Gate>();
        auto firstCancelled = std::make_shared<std::atomic<bool>>(false);
        QStringList shown;
        tasks.run(
            QStringLiteral("load"),
            [gate, firstCancelled](const TaskContext &context) {
                gate->wait();
                firstCancelled->store(context.cancelled());
                return QStringLiteral("old");
            },
            [&shown](const QString &text) { shown << text; });
        tasks.run(
            QStringLiteral("load"), [](const TaskContext &) { return QStringLiteral("new"); },
            [&shown](const QString &text) { shown << text; });
        QTRY_COMPARE_WITH_TIMEOUT(shown, QStringList {QStringLiteral("new")}, kTimeout);
        QVERIFY(tasks.isRunning(QStringLiteral("load")) == false);
        gate->open = true;
        QTRY_VERIFY_WITH_TIMEOUT(firstCancelled->load(), kTimeout);  // superseded: told to stop
        QTest::qWait(50);
        QCOMPARE(shown, QStringList {QStringLiteral("new")});  // and its result never shown
    }

    void otherKeysDoNotInterfere()
    {
        BackgroundTasks tasks;
        QStringList shown;
        tasks.run(
            QStringLiteral("a"), [](const TaskContext &) { return QStringLiteral("a"); },
            [&shown](const QString &text) { shown << text; });
        tasks.run(
            QStringLiteral("b"), [](const TaskContext &) { return QStringLiteral("b"); },
            [&shown](const QString &text) { shown << text; });
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 2, kTimeout);
        shown.sort();
        QCOMPARE(shown, (QStringList {QStringLiteral("a"), QStringLiteral("b")}));
    }

    void cancelSetsTheFlagTheWorkChecks()
    {
        BackgroundTasks tasks;
        bool stoppedEarly = false;
        tasks.run(
            QStringLiteral("long"),
            [](const TaskContext &context) {
                for (int step = 0; step < 100000; ++step) {
                    if (context.cancelled())
                        return true;
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
                return false;
            },
            [&stoppedEarly](bool cancelled) { stoppedEarly = cancelled; });
        QTRY_VERIFY(tasks.isRunning(QStringLiteral("long")));
        tasks.cancel(QStringLiteral("long"));
        QTRY_VERIFY_WITH_TIMEOUT(stoppedEarly, kTimeout);
    }

    void progressIsPostedWhileTheTaskIsCurrent()
    {
        BackgroundTasks tasks;
        QList<int> steps;
        bool done = false;
        tasks.run(
            QStringLiteral("steps"),
            [&steps](const TaskContext &context) {
                for (int i = 1; i <= 3; ++i)
                    context.post([&steps, i] { steps << i; });
                return true;
            },
            [&done](bool) { done = true; });
        QTRY_VERIFY_WITH_TIMEOUT(done, kTimeout);
        QCOMPARE(steps, (QList<int> {1, 2, 3}));  // in order, before the result
    }

    void busyChangesOnceForOverlappingTasks()
    {
        BackgroundTasks tasks;
        QSignalSpy busy(&tasks, &BackgroundTasks::busyChanged);
        auto gate = std::make_shared<Gate>();
        tasks.run(QStringLiteral("a"), [gate](const TaskContext &) { gate->wait(); });
        tasks.run(QStringLiteral("b"), [gate](const TaskContext &) { gate->wait(); });
        QCOMPARE(busy.count(), 1);
        QCOMPARE(busy.first().first().toBool(), true);
        gate->open = true;
        QTRY_COMPARE_WITH_TIMEOUT(busy.count(), 2, kTimeout);
        QCOMPARE(busy.last().first().toBool(), false);
    }

    void destroyingTheOwnerDoesNotWaitAndDropsTheResult()
    {
        auto gate = std::make_shared<Gate>();
        auto finished = std::make_shared<std::atomic<bool>>(false);
        auto sawCancel = std::make_shared<std::atomic<bool>>(false);
        bool shown = false;
        auto *tasks = new BackgroundTasks;
        tasks->run(
            QStringLiteral("stuck"),
            [gate, finished, sawCancel](const TaskContext &context) {
                gate->wait();  // work that cannot stop early
                sawCancel->store(context.cancelled());
                finished->store(true);
                return 1;
            },
            [&shown](int) { shown = true; });
        QElapsedTimer clock;
        clock.start();
        delete tasks;  // must not wait for the stuck task
        QVERIFY2(clock.elapsed() < 1000, "the destructor waited for uncancellable work");
        QVERIFY(!finished->load());
        gate->open = true;
        QTRY_VERIFY_WITH_TIMEOUT(finished->load(), kTimeout);
        QVERIFY(sawCancel->load());
        QTest::qWait(50);
        QVERIFY(!shown);
    }

    void durationsReadAsAPersonWouldSayThem_data()
    {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("seconds") << 44.6 << QStringLiteral("45 s");
        QTest::newRow("minutes") << 80.0 << QStringLiteral("1 min 20 s");
        QTest::newRow("hours") << 7500.0 << QStringLiteral("2 h 05 min");
        QTest::newRow("negative") << -3.0 << QStringLiteral("0 s");
    }

    void durationsReadAsAPersonWouldSayThem()
    {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(durationText(seconds), text);
    }

    void timeLeftWaitsForEnoughProgress()
    {
        TimeLeft left;
        left.start();
        QCOMPARE(left.text(0.01), QStringLiteral("estimating time left"));
        QTest::qWait(200);
        const QString half = left.text(0.5);  // as long again as it took so far
        QVERIFY2(half.startsWith(QStringLiteral("about ")) &&
                     half.endsWith(QStringLiteral(" left")),
                 qPrintable(half));
        QCOMPARE(TimeLeft::fromSeconds(80), QStringLiteral("about 1 min 20 s left"));
    }
};

QTEST_MAIN(TestBackgroundTasks)
#include "test_backgroundtasks.moc"
