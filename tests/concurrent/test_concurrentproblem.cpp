#include "concurrent/concurrentdata.h"
#include "concurrent/concurrentoracle.h"
#include "concurrent/concurrentstrategy.h"

#include <QTest>

#include <cmath>

using namespace ptwb;

namespace {

Measurement row(const PowerMode &mode, double timeMs, double powerW, int batch = 0)
{
    Measurement m;
    m.mode = mode;
    m.timeMs = timeMs;
    m.powerW = powerW;
    m.inferenceBatch = batch;
    return m;
}

const PowerMode kSlow {4, 422400, 114750000, 665600000};
const PowerMode kFast {12, 2201600, 1300500000, 3199000000};

}  // namespace

class TestConcurrentProblem : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void throughputIsWholeMinibatchesPerCycle()
    {
        // λ = 60/s, b = 16: a cycle of 0.2667 s; inference 50 ms leaves 0.2167 s, 5.42
        // minibatches of 40 ms: 5 per cycle, 18.75 per second.
        const ConcurrentOutcome o = assess({60, 1.0, 30}, {40, 20, 50, 25, 16});
        QVERIFY(o.keepsUp && o.meetsLatency && o.meetsPower && o.feasible());
        QCOMPARE(o.minibatchesPerCycle, 5);
        QVERIFY(std::abs(o.throughput - 18.75) < 1e-9);
        QVERIFY(std::abs(o.latencyS - (16.0 / 60 + 0.05)) < 1e-12);
        QCOMPARE(o.powerW, 25.0);
    }

    void aWholeNumberOfMinibatchesIsNotLostToRounding()
    {
        // (1.0 - 0.2) / 0.1 is 7.999... in doubles: still 8 minibatches.
        const ConcurrentOutcome o = assess({10, 2.0, 30}, {100, 20, 200, 20, 10});
        QCOMPARE(o.minibatchesPerCycle, 8);
        QVERIFY(std::abs(o.throughput - 8.0) < 1e-9);
    }

    void noTrainingIsFeasibleWhenInferenceLeavesNoRoom()
    {
        // A cycle of 0.1 s, inference 60 ms, a training minibatch of 50 ms: n = 0.
        const ConcurrentOutcome o = assess({10, 1.0, 30}, {50, 20, 60, 20, 1});
        QVERIFY(o.feasible());
        QCOMPARE(o.minibatchesPerCycle, 0);
        QCOMPARE(o.throughput, 0.0);
    }

    void eachBudgetIsChecked()
    {
        // Inference slower than the cycle: it falls behind.
        ConcurrentOutcome o = assess({10, 5.0, 30}, {50, 20, 120, 20, 1});
        QVERIFY(!o.keepsUp);
        QVERIFY(!o.feasible());
        QCOMPARE(o.minibatchesPerCycle, 0);
        // Latency: 0.1 s to fill the batch + 60 ms > 0.15 s.
        o = assess({10, 0.15, 30}, {50, 20, 60, 20, 1});
        QVERIFY(o.keepsUp && !o.meetsLatency && !o.feasible());
        // Power binds on the hungrier of the two workloads.
        o = assess({10, 1.0, 30}, {20, 25, 60, 31, 1});
        QVERIFY(!o.meetsPower && !o.feasible());
        QCOMPARE(o.powerW, 31.0);
        o = assess({10, 1.0, 30}, {20, 30.5, 60, 22, 1});
        QVERIFY(!o.meetsPower);
    }

    void theOrderPrefersFeasibleThenThroughputThenLatency()
    {
        ConcurrentOutcome feasible;
        feasible.keepsUp = feasible.meetsLatency = feasible.meetsPower = true;
        feasible.throughput = 5;
        feasible.latencyS = 0.5;
        ConcurrentOutcome faster = feasible;
        faster.meetsPower = false;
        faster.throughput = 50;
        QVERIFY(isBetter(feasible, faster));
        QVERIFY(!isBetter(faster, feasible));
        ConcurrentOutcome more = feasible;
        more.throughput = 6;
        QVERIFY(isBetter(more, feasible));
        ConcurrentOutcome sooner = feasible;
        sooner.latencyS = 0.4;
        QVERIFY(isBetter(sooner, feasible));
        QVERIFY(!isBetter(feasible, feasible));
    }

    void theOptimumTakesNoTrainingOnlyWhenNothingBetterFits()
    {
        // Slow mode: fits 15 W, trains nothing beside batch-1 inference at 10/s. Fast mode:
        // trains, but draws 28 W.
        const ConcurrentData data =
            ConcurrentData::join({row(kSlow, 80, 12), row(kFast, 20, 28)},
                                 {row(kSlow, 60, 14, 1), row(kFast, 15, 27, 1)},
                                 QStringLiteral("t"), QStringLiteral("i"))
                .value();
        ConcurrentOracle oracle(data);
        OptimalConcurrentStrategy optimal;
        int pair = optimal.choose({10, 1.0, 15}, oracle);
        QVERIFY(pair >= 0);
        QCOMPARE(data.modes[data.modeOf(pair)], kSlow);
        QCOMPARE(assess({10, 1.0, 15}, data.cost(pair)).minibatchesPerCycle, 0);
        pair = optimal.choose({10, 1.0, 30}, oracle);
        QCOMPARE(data.modes[data.modeOf(pair)], kFast);
        QCOMPARE(assess({10, 1.0, 30}, data.cost(pair)).minibatchesPerCycle, 4);
        // Nothing fits 10 W.
        QCOMPARE(optimal.choose({10, 1.0, 10}, oracle), -1);
    }

    void joinKeepsCommonModesAndReducesRepeats()
    {
        const PowerMode other {8, 1344000, 726750000, 2133000000};
        const ConcurrentData data =
            ConcurrentData::join(
                {row(kSlow, 80, 12), row(kSlow, 90, 13), row(kSlow, 100, 14), row(other, 30, 20)},
                {row(kSlow, 60, 14, 4), row(kSlow, 61, 14, 1), row(kFast, 10, 30, 1),
                 row(other, 20, 18, 4)},
                QStringLiteral("t"), QStringLiteral("i"))
                .value();
        QCOMPARE(data.modes.size(), 2);  // kFast has no training measurement
        QCOMPARE(data.batches, QVector<int>({1, 4}));
        QCOMPARE(data.trainTimeMs[0], 90.0);
        QCOMPARE(data.trainPowerW[0], 13.0);
        // `other` was not measured at batch 1: that pair never fits.
        const int missing = data.pairOf(1, 0);
        QVERIFY(!data.isMeasured(missing));
        ConcurrentOracle oracle(data);
        QVERIFY(!assess({1, 100, 100}, oracle.profile(missing)).feasible());
    }

    void joinRefusesFilesOfTheWrongKind()
    {
        const QVector<Measurement> training {row(kSlow, 80, 12)};
        const QVector<Measurement> inference {row(kSlow, 60, 14, 4)};
        auto joined = ConcurrentData::join(inference, inference, QStringLiteral("a.csv"),
                                           QStringLiteral("b.csv"));
        QVERIFY(!joined);
        QVERIFY2(joined.error().contains(QStringLiteral("a.csv holds inference")),
                 qPrintable(joined.error()));
        joined = ConcurrentData::join(training, training, QStringLiteral("a.csv"),
                                      QStringLiteral("b.csv"));
        QVERIFY(!joined);
        QVERIFY2(joined.error().contains(QStringLiteral("b.csv holds training")),
                 qPrintable(joined.error()));
        joined = ConcurrentData::join(training, {row(kFast, 60, 14, 4)}, QStringLiteral("a.csv"),
                                      QStringLiteral("b.csv"));
        QVERIFY(!joined);
        QVERIFY2(joined.error().contains(QStringLiteral("no power mode in common")),
                 qPrintable(joined.error()));
        QCOMPARE(joined.errorKind(), ErrorKind::BadInput);
    }

    void theOracleCountsEachProblemsOwnProfiles()
    {
        const ConcurrentData data =
            ConcurrentData::join({row(kSlow, 80, 12), row(kFast, 20, 28)},
                                 {row(kSlow, 60, 14, 1), row(kFast, 15, 27, 1)},
                                 QStringLiteral("t"), QStringLiteral("i"))
                .value();
        ConcurrentOracle oracle(data);
        QCOMPARE(data.modes[oracle.maxnMode()], kFast);
        oracle.profile(0);
        oracle.markPrepared();
        oracle.beginProblem();
        QCOMPARE(oracle.problemProfiledCount(), 1);
        oracle.profile(0);
        oracle.profile(1);
        oracle.profile(1);
        QCOMPARE(oracle.problemProfiledCount(), 2);
        oracle.beginProblem();
        QCOMPARE(oracle.problemProfiledCount(), 1);
        QCOMPARE(oracle.profiledCount(), 2);
    }
};

QTEST_GUILESS_MAIN(TestConcurrentProblem)
#include "test_concurrentproblem.moc"
