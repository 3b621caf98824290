// Co-selecting batch size and power mode: the arithmetic of time and energy to accuracy on
// hand-made cases, the cap on the peak, and the evaluation's baselines against the oracle.
#include "batch/batchchoice.h"
#include "batch/batchevaluation.h"

#include <QTest>

#include <cmath>

using namespace ptwb;

namespace {

// Two modes per batch: a fast, hungry one (GPU 1.3 GHz) and a slow, frugal one (0.6 GHz), with
// cores, CPU and memory at the top, as the study's GPU-capped baseline expects.
const PowerMode kFast {12, 2201600, 1300500000, 3199000000};
const PowerMode kSlow {12, 2201600, 612000000, 3199000000};

BatchCandidates batchOf(int batch, double fastMs, double fastW, double slowMs, double slowW,
                        double peakRatio = 1.0)
{
    BatchCandidates c;
    c.batch = batch;
    c.modes = {kFast, kSlow};
    c.timeMs = {fastMs, slowMs};
    c.powerW = {fastW, slowW};
    c.peakRatio = peakRatio;
    return c;
}

ConvergenceRelation samples(QVector<ConvergencePoint> points)
{
    ConvergenceRelation r;
    r.workload = QStringLiteral("w");
    r.provenance = QStringLiteral("user");
    r.points = std::move(points);
    return r;
}

}  // namespace

class TestBatchChoice : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // minibatches = samples / batch; seconds = minibatches x time; joules = seconds x power.
    void timeAndEnergyToAccuracy()
    {
        const ConvergenceRelation relation = samples({{16, 16000}, {64, 32000}});
        const BatchCandidates at16 = batchOf(16, 100, 30, 200, 20, 1.1);
        const BatchPick pick = BatchChoice::pickOf(at16, 0, relation);
        QCOMPARE(pick.minibatches, 1000.0);
        QCOMPARE(pick.seconds, 100.0);  // 1000 x 100 ms
        QCOMPARE(pick.joules, 3000.0);  // 100 s x 30 W
        QCOMPARE(pick.peakW, 33.0);  // median x peak ratio
        // a ratio below 1 is no peak: the median stands
        QCOMPARE(BatchChoice::pickOf(batchOf(16, 100, 30, 200, 20, 0.9), 0, relation).peakW, 30.0);
    }

    // The cap binds on the peak; a larger batch wins when its samples do not grow as fast as
    // its minibatches shrink; the energy objective may choose otherwise.
    void choosesUnderTheCapOnThePeak()
    {
        const ConvergenceRelation relation = samples({{16, 16000}, {64, 32000}});
        // batch 16: fast 1000 x 100 ms = 100 s at 30 W (peak 33); slow 200 s at 20 W (22)
        // batch 64: 500 minibatches; fast 500 x 150 ms = 75 s at 40 W (peak 44); slow 150 s at
        // 24 W (26.4)
        const QVector<BatchCandidates> batches {batchOf(16, 100, 30, 200, 20, 1.1),
                                                batchOf(64, 150, 40, 300, 24, 1.1)};
        auto pick = BatchChoice::choose(batches, relation, 50, AccuracyObjective::Time);
        QVERIFY(pick);
        QCOMPARE(pick->batch, 64);
        QCOMPARE(pick->mode, kFast);
        // 40 W median fits a 42 W cap, its 44 W peak does not
        pick = BatchChoice::choose(batches, relation, 42, AccuracyObjective::Time);
        QCOMPARE(pick->batch, 16);
        QCOMPARE(pick->mode, kFast);
        QVERIFY(pick->peakW <= 42);
        // energy: 16 fast 3000 J, 16 slow 4000 J, 64 fast 3000 J, 64 slow 3600 J: a tie of
        // 3000 J goes to the lower peak (33 W)
        pick = BatchChoice::choose(batches, relation, 50, AccuracyObjective::Energy);
        QCOMPARE(pick->batch, 16);
        QCOMPARE(pick->joules, 3000.0);
        // nothing fits 20 W of peak
        QVERIFY(!BatchChoice::choose(batches, relation, 20, AccuracyObjective::Time));
        const QVector<BatchPick> perBatch =
            BatchChoice::bestPerBatch(batches, relation, 30, AccuracyObjective::Time);
        QCOMPARE(perBatch.size(), 2);
        QCOMPARE(perBatch[0].mode, kSlow);  // 33 W > 30 W: the fast one is out
        QCOMPARE(perBatch[1].mode, kSlow);
    }

    // Per-row peaks, when known, replace the ratio.
    void measuredPeaksPerRow()
    {
        const ConvergenceRelation relation = samples({{16, 16000}, {64, 32000}});
        BatchCandidates at16 = batchOf(16, 100, 30, 200, 20, 1.5);
        at16.peakW = {31, 21};
        const auto pick = BatchChoice::choose({at16}, relation, 32, AccuracyObjective::Time);
        QVERIFY(pick);
        QCOMPARE(pick->mode, kFast);
        QCOMPARE(pick->peakW, 31.0);
    }

    // The evaluation on a truth of hand-made numbers: the oracle is the best pair, the
    // largest-batch baseline the top GPU clock under the cap at the largest batch, the proxy
    // baseline that mode at the batch its samples say; observed and pt never pass the cap on
    // the truth.
    void evaluationAgainstTheOracle()
    {
        BatchTruth truth;
        truth.deviceKind = QStringLiteral("orin-agx");
        truth.samples = samples({{16, 16000}, {64, 64000}});  // large batches save nothing
        truth.batches = {batchOf(16, 100, 30, 200, 20), batchOf(64, 380, 40, 700, 24)};
        for (BatchCandidates &b : truth.batches)
            b.peakW = {b.powerW[0] * 1.1, b.powerW[1] * 1.1};
        BatchEvaluationOptions options;
        options.capsW = {50, 35};
        options.samples = 2;  // every mode of this tiny truth
        options.repeats = 2;
        options.proxySamples = truth.samples;
        options.strategies = {QStringLiteral("oracle"), QStringLiteral("largest"),
                              QStringLiteral("proxy"), QStringLiteral("observed")};
        QVector<BatchEvaluationPick> picks;
        const auto results = BatchEvaluator::run(truth, options, &picks);
        QVERIFY2(results, qPrintable(results.error()));
        QCOMPARE(results->size(), 4);
        const auto result = [&](const QString &name) {
            for (const BatchStrategyResult &r : *results) {
                if (r.strategy == name)
                    return r;
            }
            return BatchStrategyResult {};
        };
        QCOMPARE(result(QStringLiteral("oracle")).penaltyMedian, 0.0);
        QCOMPARE(result(QStringLiteral("oracle")).problems, 4);
        // cap 50: oracle 16 fast (1000 x 100 ms = 100 s), largest 64 fast (1000 x 380 ms)
        for (const BatchEvaluationPick &p : picks) {
            if (p.strategy == QLatin1String("largest")) {
                QVERIFY(p.pick);
                QCOMPARE(p.pick->batch, 64);
                QCOMPARE(p.pick->mode, p.capW == 50 ? kFast : kSlow);  // 44 W peak > 35 W
            }
            if (p.strategy == QLatin1String("proxy")) {
                QCOMPARE(p.pick->batch, 16);  // the same mode, the batch its samples favour
            }
            if (p.strategy == QLatin1String("oracle") && p.capW == 35) {
                QCOMPARE(p.pick->batch, 16);
                QCOMPARE(p.pick->mode, kFast);  // 33 W peak fits 35 W
            }
            QVERIFY(!p.pick || p.truePeakW <= p.capW + 1e-9 ||
                    p.strategy == QLatin1String("largest"));
        }
        // cap 50: 380 s vs 100 s (+280 %); cap 35: 700 s vs 100 s (+600 %)
        QCOMPARE(result(QStringLiteral("largest")).penaltyMedian, 440.0);
        QCOMPARE(result(QStringLiteral("observed")).penaltyMedian, 0.0);  // it saw everything
        QCOMPARE(result(QStringLiteral("observed")).violations, 0.0);

        options.strategies = {QStringLiteral("nope")};
        const auto bad = BatchEvaluator::run(truth, options);
        QVERIFY(!bad);
        QCOMPARE(bad.field(), InputField::Strategies);
    }
};

QTEST_MAIN(TestBatchChoice)
#include "test_batchchoice.moc"
