#include "optimize/tradeoffspace.h"

#include <QTest>

#include <cmath>

using namespace ptwb;

namespace {

PowerMode mode(int cores, qint64 cpuKHz, qint64 gpuHz, qint64 emcHz)
{
    PowerMode m;
    m.setValue(Dimension::Cores, cores);
    m.setValue(Dimension::Cpu, cpuKHz);
    m.setValue(Dimension::Gpu, gpuHz);
    m.setValue(Dimension::Emc, emcHz);
    return m;
}

// Six AGX Orin modes: MAXN, the three other stock presets' modes, one better custom mode and a
// dominated one. Times in ms, powers in W.
TrainingData sixModes()
{
    TrainingData d;
    const auto add = [&d](const PowerMode &m, double timeMs, double powerW) {
        d.modes.append(m);
        d.timeMs.append(timeMs);
        d.powerW.append(powerW);
    };
    add(mode(12, 2201600, 1300500000, 3199000000), 100, 50);  // 0: MAXN
    add(mode(4, 1113600, 318750000, 2133000000), 400, 14);  // 1: MODE_15W
    add(mode(8, 1728000, 522750000, 3199000000), 250, 25);  // 2: MODE_30W
    add(mode(12, 1497600, 726750000, 3199000000), 150, 38);  // 3: MODE_50W
    add(mode(8, 2201600, 726750000, 3199000000), 180, 28);  // 4: custom, on the front
    add(mode(4, 2201600, 1300500000, 3199000000), 300, 45);  // 5: dominated
    return d;
}

TradeoffSpace measuredOnly()
{
    const Expected<DeviceSpec> spec = DeviceSpec::builtin(QStringLiteral("orin-agx"));
    Expected<TradeoffSpace> space = TradeoffSpace::build(*spec, sixModes(), nullptr);
    return space ? std::move(space).value() : TradeoffSpace();
}

Budget power(double watts, Budget::Objective objective = Budget::Objective::Time)
{
    return {Budget::Kind::Power, watts, objective};
}

}  // namespace

class TestTradeoffSpace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void measuredModesAreTheCandidates()
    {
        const TradeoffSpace space = measuredOnly();
        QCOMPARE(space.size(), 6);
        QVERIFY(!space.hasPredictions());
        QCOMPARE(space.observedCount(), 6);
        QVERIFY(space.isObserved(4));
        QVERIFY(std::isnan(space.predictedTimeMs(4)));
        QCOMPARE(space.timeMs(4), 180.0);
        // Front by power: MODE_15W, MODE_30W, custom, MODE_50W, MAXN; the dominated one is out.
        QVector<int> front;
        for (const TradeoffPoint &p : space.front().powerTime())
            front.append(p.mode);
        QCOMPARE(front, (QVector<int> {1, 2, 4, 3, 0}));
        QCOMPARE(space.observedFront().powerTime().size(), 5);
        QVERIFY(space.predictedFront().isEmpty());
    }

    void presetsAndMaxnMapOntoTheirModes()
    {
        const TradeoffSpace space = measuredOnly();
        QCOMPARE(space.maxnIndex(), 0);
        QHash<QString, int> presets;
        for (const auto &[name, index] : space.presets())
            presets.insert(name, index);
        QCOMPARE(presets.value(QStringLiteral("MAXN")), 0);
        QCOMPARE(presets.value(QStringLiteral("MODE_15W")), 1);
        QCOMPARE(presets.value(QStringLiteral("MODE_30W")), 2);
        QCOMPARE(presets.value(QStringLiteral("MODE_50W")), 3);
    }

    void powerBudgetPicksTheFastestThatFitsWithGains()
    {
        const TradeoffSpace space = measuredOnly();
        const std::optional<Recommendation> r = space.recommend(power(30));
        QVERIFY(r);
        QVERIFY(r->fits);
        QCOMPARE(r->index, 4);
        QVERIFY(r->vsMaxn);
        QCOMPARE(r->vsMaxn->against, QStringLiteral("MAXN"));
        QCOMPARE(r->vsMaxn->timePercent, 80.0);  // 180 / 100
        QCOMPARE(r->vsMaxn->powerPercent, -44.0);  // 28 / 50
        QCOMPARE(r->vsMaxn->energyPercent, 100 * (180.0 * 28 / (100.0 * 50) - 1));
        // The best stock preset within 30 W is MODE_30W (250 ms).
        QVERIFY(r->vsPreset);
        QCOMPARE(r->vsPreset->against, QStringLiteral("MODE_30W"));
        QCOMPARE(r->vsPreset->index, 2);
        QCOMPARE(r->vsPreset->timePercent, -28.0);
        QCOMPARE(r->vsPreset->energyPercent, 100 * (180.0 * 28 / (250.0 * 25) - 1));
    }

    void budgetNobodyMeetsGivesTheClosest()
    {
        const TradeoffSpace space = measuredOnly();
        const std::optional<Recommendation> r = space.recommend(power(10));
        QVERIFY(r);
        QVERIFY(!r->fits);
        QCOMPARE(r->index, 1);  // the lowest-power mode
        const std::optional<Recommendation> t =
            space.recommend({Budget::Kind::Time, 50, Budget::Objective::Time});
        QVERIFY(t);
        QVERIFY(!t->fits);
        QCOMPARE(t->index, 0);  // the fastest
    }

    void timeBudgetAndEnergyObjective()
    {
        const TradeoffSpace space = measuredOnly();
        QCOMPARE(space.recommend({Budget::Kind::Time, 200, Budget::Objective::Time})->index, 4);
        // Lowest energy within 60 W is MAXN (5,000 W ms), not MODE_50W (5,700).
        QCOMPARE(space.recommend(power(60, Budget::Objective::Energy))->index, 0);
        QCOMPARE(space.recommend(power(30, Budget::Objective::Energy))->index, 4);
        // The query agrees with the front's own answers.
        for (double watts = 5; watts <= 60; watts += 0.5) {
            QCOMPARE(space.query(power(watts))->point.mode,
                     space.front().fastestWithin(watts)->point.mode);
        }
    }

    void indexOfFindsOnlyCandidates()
    {
        // A model-less space holds the measured modes only; indexOf finds them.
        const TradeoffSpace space = measuredOnly();
        QCOMPARE(space.indexOf(mode(8, 2201600, 726750000, 3199000000)), 4);
        QCOMPARE(space.indexOf(mode(2, 2201600, 726750000, 3199000000)), -1);
    }

    void predictionsCoverEveryModeAndMeasurementsWin()
    {
        const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
        const ModeSpace space(spec);
        // A smooth synthetic law: faster and hungrier with every clock.
        ModePredictions predicted;
        for (qint64 i = 0; i < space.size(); ++i) {
            const PowerMode m = space.mode(i);
            const double speed =
                m.cores / 12.0 + m.cpuKHz / 2.2e6 + m.gpuHz / 1.3e9 + m.emcHz / 3.2e9;
            predicted.timeMs.append(400 / speed);
            predicted.powerW.append(8 + 12 * speed);
        }
        TrainingData measured = sixModes();
        Expected<TradeoffSpace> built = TradeoffSpace::build(spec, measured, predicted, 7);
        QVERIFY2(built, qPrintable(built.error()));
        const TradeoffSpace &s = *built;
        QCOMPARE(qint64(s.size()), space.size());
        QCOMPARE(s.modelId(), qint64(7));
        QCOMPARE(s.observedCount(), 6);
        const int maxn = s.indexOf(spec.maxMode());
        QCOMPARE(s.maxnIndex(), maxn);
        QVERIFY(s.isObserved(maxn));
        QCOMPARE(s.timeMs(maxn), 100.0);  // observed wins over predicted
        // Far from every measured mode the prediction is left as it is.
        const int far = s.indexOf(space.mode(0));
        QVERIFY(!s.isObserved(far));
        QCOMPARE(s.predictedTimeMs(far), predicted.timeMs[far]);
        QCOMPARE(s.timeMs(far), predicted.timeMs[far]);
        // The front of everything is never slower than the measured front at any budget.
        for (double watts = 15; watts <= 55; watts += 5) {
            const auto all = s.query(power(watts));
            const auto observed = s.observedFront().fastestWithin(watts);
            QVERIFY(all && observed);
            if (observed->fits)
                QVERIFY(all->point.timeMs <= observed->point.timeMs);
        }
        // A wrong number of predictions is refused, naming the counts.
        predicted.timeMs.removeLast();
        const Expected<TradeoffSpace> bad = TradeoffSpace::build(spec, measured, predicted, 7);
        QVERIFY(!bad);
        QVERIFY(bad.error().contains(QStringLiteral("18095")));
    }

    void safePickKeepsTheMarginAndSaysWhatItCosts()
    {
        const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
        const ModeSpace space(spec);
        ModePredictions predicted;
        for (qint64 i = 0; i < space.size(); ++i) {
            const PowerMode m = space.mode(i);
            const double speed =
                m.cores / 12.0 + m.cpuKHz / 2.2e6 + m.gpuHz / 1.3e9 + m.emcHz / 3.2e9;
            predicted.timeMs.append(400 / speed);
            predicted.powerW.append(8 + 12 * speed);
            predicted.timeStdMs.append(0.05 * predicted.timeMs.last());
            // The GPU-heavy modes are the uncertain ones.
            predicted.powerStdW.append(m.gpuHz > 900000000 ? 4.0 : 0.5);
        }
        const Expected<TradeoffSpace> built =
            TradeoffSpace::build(spec, TrainingData(), predicted, 7);
        QVERIFY2(built, qPrintable(built.error()));
        const TradeoffSpace &s = *built;
        QVERIFY(s.hasUncertainty());
        Budget budget = power(40);
        const auto plain = s.recommend(budget);
        budget.safetySigmas = 1;
        const auto safe = s.recommend(budget);
        QVERIFY(plain && safe && plain->fits && safe->fits);
        QVERIFY(!plain->safetyCostPercent);
        const int p = plain->index;
        const int q = safe->index;
        QVERIFY(s.predictedPowerW(p) + s.predictedPowerStdW(p) > 40);  // the plain pick is unsafe
        QVERIFY(s.predictedPowerW(q) + s.predictedPowerStdW(q) <= 40);
        QVERIFY(s.timeMs(q) > s.timeMs(p));
        QVERIFY(safe->safetyCostPercent);
        QCOMPARE(*safe->safetyCostPercent, 100 * (s.timeMs(q) / s.timeMs(p) - 1));
        // A time budget takes its margin on time.
        Budget time {Budget::Kind::Time, 150, Budget::Objective::Time, 1.645};
        const auto slow = s.recommend(time);
        QVERIFY(slow && slow->fits);
        QVERIFY(s.timeMs(slow->index) + 1.645 * s.predictedTimeStdMs(slow->index) <= 150);
        QVERIFY(std::abs(Budget::confidenceOf(1.0) - 0.8413) < 1e-3);
        // Measured modes keep their observed values: no margin on them.
        TrainingData measured;
        measured.modes.append(space.mode(p));
        measured.timeMs.append(s.timeMs(p));
        measured.powerW.append(39.5);
        const Expected<TradeoffSpace> withMeasured =
            TradeoffSpace::build(spec, measured, predicted, 7);
        QVERIFY(withMeasured);
        budget.safetySigmas = 3;
        const auto verified = withMeasured->recommend(budget);
        QVERIFY(verified && verified->fits);
        QCOMPARE(withMeasured->mode(verified->index), space.mode(p));
    }

    void emptyMeasurementsHaveNoAnswer()
    {
        const Expected<DeviceSpec> spec = DeviceSpec::builtin(QStringLiteral("orin-agx"));
        const Expected<TradeoffSpace> space = TradeoffSpace::build(*spec, TrainingData(), nullptr);
        QVERIFY(space);
        QCOMPARE(space->size(), 0);
        QVERIFY(!space->recommend(power(30)));
    }
};

QTEST_GUILESS_MAIN(TestTradeoffSpace)
#include "test_tradeoffspace.moc"
