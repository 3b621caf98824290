#include "modes/devicespec.h"
#include "store/store.h"
#include "store/sweepstore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

namespace {

SweepPlan plan(int modes, int repeats = 1)
{
    SweepPlan p;
    p.device = QStringLiteral("simulated-orin-agx");
    p.deviceKind = QStringLiteral("orin-agx");
    p.workload = QStringLiteral("resnet18");
    p.target = QStringLiteral("sim:orin-agx");
    p.modeSet = QStringLiteral("random:%1").arg(modes);
    p.run = QStringLiteral(R"({"kind":"builtin","name":"resnet18","batch_size":16})");
    p.repeats = repeats;
    p.seed = 7;
    p.modes =
        SweepPlan::selectModes(DeviceSpec::builtin(p.deviceKind).value(), p.modeSet, 7).value();
    SweepPlan::orderHighToLow(p.modes);
    return p;
}

Measurement measured(const PowerMode &mode)
{
    Measurement m;
    m.mode = mode;
    m.timeMs = 100;
    m.powerW = 20;
    m.timeSpreadMs = 2;
    m.powerSpreadW = 0.5;
    m.minibatches = 30;
    m.bootId = QStringLiteral("boot-1");
    return m;
}

}  // namespace

class TestSweepStore : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_count = 0;

    std::unique_ptr<Store> freshStore()
    {
        auto store = Store::open(m_dir.filePath(QStringLiteral("s%1.sqlite").arg(++m_count)));
        return store ? std::move(store).value() : nullptr;
    }

private Q_SLOTS:
    // One mapping between the states and the store's words, which existing files hold.
    void statesReadBackAsTheyWereWritten()
    {
        for (const SweepState state :
             {SweepState::Planned, SweepState::Running, SweepState::Paused, SweepState::Cancelled,
              SweepState::Interrupted, SweepState::Done, SweepState::Failed})
            QCOMPARE(sweepStateFromText(sweepStateText(state)), state);
        QCOMPARE(sweepStateText(SweepState::Interrupted), QStringLiteral("interrupted"));
        QCOMPARE(sweepStateFromText(QStringLiteral("from-a-newer-version")),
                 SweepState::Interrupted);
        for (const SweepItem::State state :
             {SweepItem::State::Pending, SweepItem::State::Done, SweepItem::State::Failed})
            QCOMPARE(SweepItem::stateFromText(SweepItem::stateText(state)), state);
        QCOMPARE(SweepItem::stateText(SweepItem::State::Failed), QStringLiteral("failed"));
    }

    void planRoundTrips()
    {
        auto store = freshStore();
        QVERIFY(store);
        SweepStore sweeps(*store);
        const SweepPlan p = plan(10, 2);
        const Expected<qint64> id = sweeps.create(p);
        QVERIFY2(id, qPrintable(id.error()));
        const Expected<SweepRecord> record = sweeps.load(*id);
        QVERIFY2(record, qPrintable(record.error()));
        QCOMPARE(record->items.size(), 20);  // 10 modes x 2 repeats
        QCOMPARE(record->count(SweepItem::State::Pending), 20);
        QCOMPARE(record->plan.modes.size(), 10);
        QCOMPARE(record->plan.modes, p.modes);
        QCOMPARE(record->plan.run, p.run);
        QCOMPARE(record->plan.seed, p.seed);
        QCOMPARE(record->plan.target, p.target);
        QCOMPARE(record->items[1].repeat, 1);
        QCOMPARE(record->items[1].mode, record->items[0].mode);
        QCOMPARE(*sweeps.latest(p.device, p.workload), *id);
        QVERIFY(!sweeps.latest(p.device, QStringLiteral("other")));
    }

    // Each mode once, then every batch size in the order given, each repeated in a row: the
    // mode is applied once for all its batch sizes.
    void batchSizesFollowEachMode()
    {
        auto store = freshStore();
        QVERIFY(store);
        SweepStore sweeps(*store);
        SweepPlan p = plan(3, 2);
        p.batchSizes = {32, 1, 4};
        const Expected<qint64> id = sweeps.create(p);
        QVERIFY2(id, qPrintable(id.error()));
        Expected<SweepRecord> record = sweeps.load(*id);
        QVERIFY2(record, qPrintable(record.error()));
        QCOMPARE(record->plan.batchSizes, p.batchSizes);
        QCOMPARE(record->plan.modes, p.modes);  // each mode once, whatever its sizes
        QCOMPARE(record->items.size(), 18);  // 3 modes x 3 sizes x 2 repeats
        for (int i = 0; i < record->items.size(); ++i) {
            const SweepItem &item = record->items[i];
            QCOMPARE(item.position, i);
            QCOMPARE(item.mode, p.modes[i / 6]);
            QCOMPARE(item.batchSize, p.batchSizes[(i / 2) % 3]);
            QCOMPARE(item.repeat, i % 2);
        }
        // a grown plan takes the same sizes
        const auto added = sweeps.append(*id, {p.modes.first()}, 1, p.batchSizes);
        QVERIFY2(added, qPrintable(added.error()));
        QCOMPARE(added->size(), 3);
        QCOMPARE(added->at(2).batchSize, 4);
        QCOMPARE(added->at(2).position, 20);
        record = sweeps.load(*id);
        QCOMPARE(record->items.last().batchSize, 4);

        // without sizes an item profiles the run's own batch (0)
        const Expected<qint64> plain = sweeps.create(plan(2));
        QVERIFY(plain);
        const Expected<SweepRecord> plainRecord = sweeps.load(*plain);
        QVERIFY(plainRecord->plan.batchSizes.isEmpty());
        QCOMPARE(plainRecord->items.size(), 2);
        QCOMPARE(plainRecord->items[0].batchSize, 0);
    }

    void highToLowOrder()
    {
        QVector<PowerMode> modes = plan(200).modes;
        for (int i = 1; i < modes.size(); ++i) {
            QVERIFY(modes[i - 1].emcHz >= modes[i].emcHz);
            if (modes[i - 1].emcHz == modes[i].emcHz)
                QVERIFY(modes[i - 1].gpuHz >= modes[i].gpuHz);
        }
    }

    void aModeIsRecordedOnce()
    {
        auto store = freshStore();
        QVERIFY(store);
        SweepStore sweeps(*store);
        const SweepPlan p = plan(5);
        const qint64 id = sweeps.create(p).value();
        const Expected<qint64> first =
            sweeps.recordDone(id, 0, measured(p.modes[0]), QStringLiteral("a"));
        QVERIFY(first);
        // A second device (or a resumed run) cannot store it again.
        const Expected<qint64> again =
            sweeps.recordDone(id, 0, measured(p.modes[0]), QStringLiteral("b"));
        QVERIFY(!again);
        QVERIFY2(again.error().contains(QLatin1String("not pending")), qPrintable(again.error()));
        // Nor store a different mode under that position.
        QVERIFY(!sweeps.recordDone(id, 1, measured(p.modes[2]), QStringLiteral("a")));
        QVERIFY(!sweeps.recordFailed(id, 0, QStringLiteral("late"), QStringLiteral("b")));
        QVERIFY(sweeps.recordFailed(id, 1, QStringLiteral("gpu_hz: refused"), QStringLiteral("a")));

        const SweepRecord record = sweeps.load(id).value();
        QCOMPARE(record.count(SweepItem::State::Done), 1);
        QCOMPARE(record.count(SweepItem::State::Failed), 1);
        QCOMPARE(record.items[1].reason, QStringLiteral("gpu_hz: refused"));
        QCOMPARE(record.items[0].target, QStringLiteral("a"));
        const QVector<Measurement> rows = store->measurements(p.device, p.workload).value();
        QCOMPARE(rows.size(), 1);  // the refused attempt wrote no measurement
        QCOMPARE(rows[0].id, *first);  // the id it returned, and the plan row links to it
        QCOMPARE(record.items[0].measurementId, *first);
        QCOMPARE(record.items[1].measurementId, qint64(0));
        QCOMPARE(rows[0].source, QStringLiteral("sweep"));
        QCOMPARE(rows[0].bootId, QStringLiteral("boot-1"));
        QCOMPARE(rows[0].minibatches, 30);
    }

    // A failed mode keeps the workload's last output lines beside its reason, sanitised and at
    // most kStoredOutputLines of them (the last), and reads them back.
    void aFailedModeKeepsItsOutputLines()
    {
        auto store = freshStore();
        QVERIFY(store);
        SweepStore sweeps(*store);
        const SweepPlan p = plan(3);
        const qint64 id = sweeps.create(p).value();
        QVector<WorkloadOutputLine> output;
        for (int i = 0; i < 25; ++i)
            output.append({QStringLiteral("out"), QStringLiteral("line %1").arg(i), std::nullopt});
        output.append(
            {QStringLiteral("err"),
             QStringLiteral("\x1b[31mTraceback\x07\tboom") + QString(2000, QLatin1Char('x')),
             std::nullopt});
        output[20].ms = 95.5;
        QVERIFY(sweeps.recordFailed(id, 0, QStringLiteral("workload exited with status 3"),
                                    QStringLiteral("sim:orin-agx"), output));
        QVERIFY(sweeps.recordFailed(id, 1, QStringLiteral("gpu_hz: refused"),
                                    QStringLiteral("sim:orin-agx")));
        const SweepRecord record = sweeps.load(id).value();
        const QVector<WorkloadOutputLine> &kept = record.items[0].output;
        QCOMPARE(kept.size(), SweepStore::kStoredOutputLines);
        QCOMPARE(kept.first().text, QStringLiteral("line 6"));
        QCOMPARE(kept[14].ms, std::optional<double>(95.5));  // line 20
        QCOMPARE(kept.last().stream, QStringLiteral("err"));
        QVERIFY(kept.last().text.startsWith(QLatin1String("[31mTraceback boom")));
        QCOMPARE(kept.last().text.size(), WorkloadOutputLine::kMaxLineChars - 2);
        QVERIFY(record.items[1].output.isEmpty());
        QCOMPARE(*store->connection().queryInt(
                     QStringLiteral("SELECT count(*) FROM sweep_modes WHERE output IS NULL")),
                 qint64(2));  // the mode without output, and the one still pending
    }

    void anAdaptivePlanGrows()
    {
        auto store = freshStore();
        QVERIFY(store);
        SweepStore sweeps(*store);
        SweepPlan p = plan(20, 2);
        p.modeSet = QStringLiteral("als:30");
        const qint64 id = sweeps.create(p).value();
        const QVector<PowerMode> more = plan(25).modes.mid(20);
        const Expected<QVector<SweepItem>> added = sweeps.append(id, more, 2);
        QVERIFY2(added, qPrintable(added.error()));
        QCOMPARE(added->size(), 10);
        QCOMPARE(added->first().position, 40);  // after 20 modes x 2 repeats
        QCOMPARE(added->at(1).repeat, 1);
        const SweepRecord record = sweeps.load(id).value();
        QCOMPARE(record.items.size(), 50);
        QCOMPARE(record.plan.modes.size(), 25);
        QCOMPARE(record.items.last().mode, more.last());
        QVERIFY(!sweeps.append(4242, more, 1));
    }

    void adaptiveModeSetStartsWithRandomModes()
    {
        const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
        const auto modes = SweepPlan::selectModes(spec, QStringLiteral("als:100"), 3);
        QVERIFY(modes);
        QCOMPARE(modes->size(), SweepPlan::kAdaptiveStart);
        QVERIFY(!SweepPlan::selectModes(spec, QStringLiteral("als:5"), 3));  // below the start
    }

    void unknownSweepIsBadInput()
    {
        auto store = freshStore();
        QVERIFY(store);
        const Expected<SweepRecord> none = SweepStore(*store).load(42);
        QVERIFY(!none);
        QCOMPARE(none.errorKind(), ErrorKind::BadInput);
    }

    void badModeSets_data()
    {
        QTest::addColumn<QString>("set");
        QTest::newRow("zero") << "random:0";
        QTest::newRow("too many") << "random:18097";
        QTest::newRow("words") << "some";
        QTest::newRow("bad grid") << "grid:cores=13";
    }

    void badModeSets()
    {
        QFETCH(QString, set);
        const auto modes =
            SweepPlan::selectModes(DeviceSpec::builtin(QStringLiteral("orin-agx")).value(), set, 0);
        QVERIFY(!modes);
        QCOMPARE(modes.errorKind(), ErrorKind::BadInput);
        QVERIFY2(modes.error().contains(set), qPrintable(modes.error()));
    }
};

QTEST_GUILESS_MAIN(TestSweepStore)
#include "test_sweepstore.moc"
