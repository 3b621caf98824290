// The window against a hostile device (issue 21): the simulated Jetson made hostile one case at
// a time (remote/simulator/hostile.py, docs/simulator.md "A hostile device"), first from its
// hello on (the Devices view connects to it), then after an honest hello (a sweep reaches the
// perturbed profile replies). Every case must end with
//   - the window responsive: a timer queued on the GUI thread fires (the event loop turns),
//   - its memory bounded: VmRSS of this process (the transports run in it) below start + 200 MiB,
//   - a clear message, shown as plain text: every label carrying device text is plain text, and
//     the FIFO the rich-text case names in <img src> is never opened,
//   - the store intact: integrity_check ok, every done mode linked to its measurement, no
//     measurement without one, and no stored number non-finite or absurd.

#include "deviceclient.h"
#include "devicedetails.h"
#include "devicespanel.h"
#include "localprocesstransport.h"
#include "simulatorlauncher.h"
#include "store/sqlite.h"
#include "sweeppanel.h"

#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kWaitMs = 60000;
constexpr qint64 kMemoryBoundKiB = 200 * 1024;

// This process's resident memory (the transports run in it), from any thread.
qint64 residentKiB()
{
    FILE *status = std::fopen("/proc/self/status", "r");
    if (!status)
        return -1;
    char line[256];
    long long kib = -1;
    while (std::fgets(line, sizeof line, status)) {
        if (std::sscanf(line, "VmRSS: %lld kB", &kib) == 1)
            break;
    }
    std::fclose(status);
    return kib;
}

// Ends the process when its memory grows past `limitKiB` over what it was when made: a device the
// desktop does not bound would otherwise take the machine's memory (the test then fails as a
// crash, with this message).
class MemoryWatchdog
{
public:
    explicit MemoryWatchdog(qint64 limitKiB)
        : m_start(residentKiB())
        , m_thread([this, limitKiB] {
            while (!m_stop) {
                const qint64 now = residentKiB();
                if (now - m_start > limitKiB) {
                    std::fprintf(stderr,
                                 "test_hostilewindow: memory grew by %lld KiB (limit %lld): "
                                 "aborting\n",
                                 now - m_start, limitKiB);
                    std::abort();
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        })
    {
    }
    ~MemoryWatchdog()
    {
        m_stop = true;
        m_thread.join();
    }

private:
    std::atomic<bool> m_stop {false};
    qint64 m_start;
    std::thread m_thread;
};

// Whether the GUI thread's event loop still turns: a timer queued now fires (the bound only
// keeps a frozen window from hanging the test; it is no performance figure).
bool eventLoopTurns()
{
    bool fired = false;
    QTimer::singleShot(0, [&fired] { fired = true; });
    return QTest::qWaitFor([&fired] { return fired; }, 10000);
}

// Notices anything opening a FIFO for reading, and lets such a reader go (see test_plaintext).
class FifoWatch
{
public:
    explicit FifoWatch(const QByteArray &path)
        : m_thread([this, path] {
            while (!m_stop) {
                const int fd = ::open(path.constData(), O_WRONLY | O_NONBLOCK);
                if (fd >= 0) {
                    m_opened = true;
                    ::close(fd);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        })
    {
    }
    ~FifoWatch()
    {
        m_stop = true;
        m_thread.join();
    }
    bool opened() const { return m_opened; }

private:
    std::atomic<bool> m_stop {false};
    std::atomic<bool> m_opened {false};
    std::thread m_thread;
};

// Labels that show markup-looking text show it as plain text; returns the first offender.
QString richLabel(QWidget *root)
{
    for (QLabel *label : root->findChildren<QLabel *>()) {
        const QString text = label->text();
        const bool markup = text.contains(QLatin1String("<img")) ||
            text.contains(QLatin1String("<b>")) || text.contains(QLatin1String("<a "));
        if (markup && label->textFormat() != Qt::PlainText)
            return QStringLiteral("%1: %2").arg(label->objectName(), text.left(200));
    }
    for (QWidget *widget : root->findChildren<QWidget *>()) {
        const QString tip = widget->toolTip();
        if (!tip.contains(QLatin1String("<img")) || !Qt::mightBeRichText(tip))
            continue;
        return QStringLiteral("tooltip of %1: %2").arg(widget->objectName(), tip.left(200));
    }
    return {};
}

// What the labels under `root` say, for a failing test's message.
QString labelTexts(QWidget *root)
{
    QStringList texts;
    for (QLabel *label : root->findChildren<QLabel *>()) {
        if (!label->text().isEmpty())
            texts << label->text().left(300);
    }
    return texts.join(QStringLiteral(" | "));
}

struct StoreCheck
{
    QString integrity;
    qint64 done = -1;
    qint64 linked = -1;
    qint64 orphans = -1;
    qint64 absurd = -1;  // measurements with a number no device could produce
};

StoreCheck checkStore(const QString &db)
{
    StoreCheck c;
    if (!QFile::exists(db)) {
        c.integrity = QStringLiteral("ok");  // nothing was written: unchanged
        c.done = c.linked = c.orphans = c.absurd = 0;
        return c;
    }
    auto connection = SqliteConnection::open(db, false);
    if (!connection)
        return c;
    auto count = [&](const QString &sql) {
        Expected<qint64> n = connection->queryInt(sql);
        return n ? *n : -1;
    };
    if (auto check = connection->prepare(QStringLiteral("PRAGMA integrity_check"))) {
        Expected<bool> row = check->step();
        if (row && *row)
            c.integrity = check->columnText(0);
    }
    c.done = count(QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = 'done'"));
    c.linked = count(QStringLiteral(
        "SELECT count(DISTINCT m.id) FROM sweep_modes s JOIN measurements m ON m.id = "
        "s.measurement_id WHERE s.state = 'done'"));
    c.orphans = count(QStringLiteral(
        "SELECT count(*) FROM measurements m WHERE m.sweep_id IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM sweep_modes s WHERE s.measurement_id = m.id AND s.state = 'done')"));
    // NaN is stored as NULL by SQLite; infinities compare above any finite bound.
    c.absurd = count(QStringLiteral(
        "SELECT count(*) FROM measurements WHERE time_ms IS NULL OR NOT (time_ms > 0) OR "
        "time_ms > 1e7 OR power_w IS NULL OR NOT (power_w > 0) OR power_w > 1e4 OR "
        "time_spread_ms < 0 OR time_spread_ms > 1e7 OR power_spread_w < 0 OR "
        "power_spread_w > 1e4"));
    return c;
}

}  // namespace

class TestHostileWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_fifo;
    int m_runs = 0;

    workflows::DeviceEndpoint hostileTarget(const QString &hostileCase)
    {
        workflows::ConnectionOptions options;
        options.simulatorState = m_dir.filePath(QStringLiteral("sim-%1").arg(++m_runs));
        options.simulatorSpeed = 200;
        options.simulatorFaults = {QStringLiteral("hostile:%1").arg(hostileCase)};
        return workflows::endpoint(QStringLiteral("sim:orin-agx"), options).value();
    }

    static void addCases()
    {
        QTest::addColumn<QString>("hostileCase");
        // PTWB_HOSTILE_CASES=a,b runs only those.
        const QStringList only =
            qEnvironmentVariable("PTWB_HOSTILE_CASES").split(QLatin1Char(','), Qt::SkipEmptyParts);
        for (const char *name : {"rich-text", "terminal-escapes", "line-flood", "endless-line",
                                 "absurd-numbers", "wrong-types", "duplicate-replies",
                                 "out-of-order-replies", "unsolicited-reply", "endless-events"}) {
            if (only.isEmpty() || only.contains(QLatin1String(name)))
                QTest::newRow(name) << QString::fromLatin1(name);
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QVERIFY2(SimulatorLauncher::scriptDirectory().ok(),
                 qPrintable(SimulatorLauncher::scriptDirectory().error()));
        m_fifo = m_dir.filePath(QStringLiteral("image-fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(m_fifo).constData(), 0600), 0);
        // The rich-text case's <img src>: a FIFO, which would freeze a window that reads it.
        qputenv("PTWB_HOSTILE_IMG", QFile::encodeName(m_fifo));
    }

    void init()
    {
        // A device's number reaching a painter unchecked (NaN, 1e300) is what Qt warns of here.
        QTest::failOnWarning(QRegularExpression(QStringLiteral("NaN|undefined")));
    }

    void devicesViewSurvives_data() { addCases(); }

    void devicesViewSurvives()
    {
        // Hostile from the hello on: the Devices view connects, shows the device or why not.
        QFETCH(QString, hostileCase);
        FifoWatch watch(QFile::encodeName(m_fifo));
        const MemoryWatchdog watchdog(4 * kMemoryBoundKiB);
        const qint64 before = residentKiB();
        SimulatorOptions options;
        options.stateDirectory = m_dir.filePath(QStringLiteral("sim-%1").arg(++m_runs));
        options.speed = 200;
        options.faults = {QStringLiteral("hostile:%1").arg(hostileCase)};
        Expected<LocalProcessTransport *> transport = SimulatorLauncher::transport(options);
        QVERIFY2(transport, qPrintable(transport.error()));
        DeviceClient client(*transport);
        DevicesPanel panel;
        panel.resize(900, 600);
        panel.show();
        panel.setClient(&client);
        client.connectToDevice();
        DeviceDetailsView *details = panel.details();
        // Connected, or given up with a reason; a device that never settles is one the
        // desktop failed to bound.
        const bool settled = QTest::qWaitFor(
            [&] {
                return details->state() == DeviceDetailsView::State::Connected ||
                    details->state() == DeviceDetailsView::State::Disconnected;
            },
            kWaitMs);
        // A few of the monitor's polls against whatever it sends.
        QTest::qWait(1500);
        const qint64 grown = residentKiB() - before;
        QVERIFY(eventLoopTurns());
        QVERIFY2(grown < kMemoryBoundKiB, qPrintable(QStringLiteral("grew %1 KiB").arg(grown)));
        QVERIFY2(settled, qPrintable(details->stateText()));
        QVERIFY(!details->stateText().isEmpty());
        panel.grab();  // lays out and paints every label: what would read an <img>
        const QString rich = richLabel(&panel);
        QVERIFY2(rich.isEmpty(), qPrintable(rich));
        QVERIFY(!watch.opened());
        panel.setClient(nullptr);
    }

    void sweepSurvives_data() { addCases(); }

    void sweepSurvives()
    {
        // An honest hello, then the case: the sweep's profile replies are hostile.
        QFETCH(QString, hostileCase);
        FifoWatch watch(QFile::encodeName(m_fifo));
        const MemoryWatchdog watchdog(4 * kMemoryBoundKiB);
        const qint64 before = residentKiB();
        const QString db = m_dir.filePath(QStringLiteral("db-%1.sqlite").arg(++m_runs));
        SweepPanel panel;
        panel.resize(1100, 760);
        panel.show();
        panel.setDatabasePath(db);
        panel.setDevice(hostileTarget(hostileCase + QStringLiteral("@1")));
        workflows::SweepRequest request;
        request.workload = QStringLiteral("resnet18");
        request.modeSet = QStringLiteral("random:3");
        request.minibatches = 5;
        panel.setRequest(request);
        panel.start();
        // Finished (modes measured or failed) or stopped with a message; else cancelled here,
        // and the cancel itself must end it.
        bool ended = QTest::qWaitFor([&] { return !panel.isRunning(); }, kWaitMs);
        if (!ended) {
            panel.cancel();
            ended = QTest::qWaitFor([&] { return !panel.isRunning(); }, kWaitMs);
        }
        const qint64 grown = residentKiB() - before;
        QVERIFY(eventLoopTurns());
        QVERIFY2(grown < kMemoryBoundKiB, qPrintable(QStringLiteral("grew %1 KiB").arg(grown)));
        QVERIFY2(ended,
                 qPrintable(QStringLiteral("the sweep did not end, not even when "
                                           "cancelled; it shows: %1")
                                .arg(labelTexts(&panel))));
        auto *message = panel.findChild<QLabel *>(QStringLiteral("messageLabel"));
        QVERIFY(message);
        QVERIFY2(!message->text().isEmpty(), "no message");
        QCOMPARE(message->textFormat(), Qt::PlainText);
        panel.grab();
        const QString rich = richLabel(&panel);
        QVERIFY2(rich.isEmpty(), qPrintable(rich));
        QVERIFY(!watch.opened());
        const StoreCheck store = checkStore(db);
        QCOMPARE(store.integrity, QStringLiteral("ok"));
        QCOMPARE(store.linked, store.done);
        QCOMPARE(store.orphans, qint64(0));
        QCOMPARE(store.absurd, qint64(0));
    }
};

QTEST_MAIN(TestHostileWindow)
#include "test_hostilewindow.moc"
