#include "optimize/paretofront.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>

using namespace ptwb;

namespace {

// A point is on the front when no other point is at least as good in both and better in one.
QVector<TradeoffPoint> bruteForce(const QVector<TradeoffPoint> &points)
{
    QVector<TradeoffPoint> front;
    for (const TradeoffPoint &p : points) {
        bool dominated = false;
        for (const TradeoffPoint &q : points) {
            if ((q.powerW <= p.powerW && q.timeMs < p.timeMs) ||
                (q.powerW < p.powerW && q.timeMs <= p.timeMs)) {
                dominated = true;
                break;
            }
        }
        // Exact duplicates: keep the first listed.
        for (const TradeoffPoint &q : front) {
            if (q.powerW == p.powerW && q.timeMs == p.timeMs)
                dominated = true;
        }
        if (!dominated)
            front.append(p);
    }
    std::sort(front.begin(), front.end(),
              [](const TradeoffPoint &a, const TradeoffPoint &b) { return a.powerW < b.powerW; });
    return front;
}

QVector<TradeoffPoint> randomPoints(int count, quint64 seed, bool coarse)
{
    std::mt19937_64 rng(seed);
    // Coarse values make ties and exact duplicates common.
    std::uniform_int_distribution<int> coarseValue(1, 8);
    std::uniform_real_distribution<double> fineValue(1, 100);
    QVector<TradeoffPoint> points;
    for (int i = 0; i < count; ++i) {
        points.append({i, coarse ? double(coarseValue(rng)) : fineValue(rng),
                       coarse ? double(coarseValue(rng)) : fineValue(rng)});
    }
    return points;
}

QVector<int> modes(const QVector<TradeoffPoint> &points)
{
    QVector<int> out;
    for (const TradeoffPoint &p : points)
        out.append(p.mode);
    return out;
}

}  // namespace

class TestParetoFront : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void equalsBruteForce_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<bool>("coarse");
        QTest::newRow("empty") << 0 << false;
        QTest::newRow("single") << 1 << false;
        QTest::newRow("two") << 2 << true;
        QTest::newRow("ties and duplicates") << 60 << true;
        QTest::newRow("many ties") << 400 << true;
        QTest::newRow("distinct") << 300 << false;
    }

    void equalsBruteForce()
    {
        QFETCH(int, count);
        QFETCH(bool, coarse);
        for (quint64 seed = 0; seed < 50; ++seed) {
            const QVector<TradeoffPoint> points = randomPoints(count, seed, coarse);
            const ParetoFront front(points);
            QCOMPARE(modes(front.powerTime()), modes(bruteForce(points)));
        }
    }

    void budgetQueriesAroundEveryFrontPoint()
    {
        for (quint64 seed = 0; seed < 20; ++seed) {
            const QVector<TradeoffPoint> points = randomPoints(200, seed, seed % 2);
            const ParetoFront front(points);
            for (const TradeoffPoint &p : front.powerTime()) {
                for (double budget : {p.powerW, p.powerW - 1e-9, p.powerW + 1e-9}) {
                    // Brute force: fastest point within the budget (first listed on ties).
                    const TradeoffPoint *best = nullptr;
                    for (const TradeoffPoint &q : points) {
                        if (q.powerW <= budget &&
                            (!best || q.timeMs < best->timeMs ||
                             (q.timeMs == best->timeMs && q.powerW < best->powerW)))
                            best = &q;
                    }
                    const std::optional<BudgetAnswer> answer = front.fastestWithin(budget);
                    QVERIFY(answer);
                    if (!best) {
                        QVERIFY(!answer->fits);
                        continue;
                    }
                    QVERIFY(answer->fits);
                    QCOMPARE(answer->point.timeMs, best->timeMs);
                    QVERIFY(answer->point.powerW <= budget);
                }
                // Time budgets: the lowest power at or under each front point's time.
                for (double budget : {p.timeMs, p.timeMs + 1e-9, p.timeMs - 1e-9}) {
                    double lowest = -1;
                    for (const TradeoffPoint &q : points) {
                        if (q.timeMs <= budget && (lowest < 0 || q.powerW < lowest))
                            lowest = q.powerW;
                    }
                    const std::optional<BudgetAnswer> answer = front.lowestPowerWithin(budget);
                    QVERIFY(answer);
                    QCOMPARE(answer->fits, lowest >= 0);
                    if (lowest >= 0)
                        QCOMPARE(answer->point.powerW, lowest);
                }
            }
        }
    }

    void energyQueries()
    {
        // Energy = power x time: 10x10=100, 20x4=80, 40x3=120, 5x30=150.
        const QVector<TradeoffPoint> points {{0, 10, 10}, {1, 20, 4}, {2, 40, 3}, {3, 5, 30}};
        const ParetoFront front(points);
        QCOMPARE(front.lowestEnergyWithinPower(25)->point.mode, 1);
        QCOMPARE(front.lowestEnergyWithinPower(15)->point.mode, 0);
        QCOMPARE(front.lowestEnergyWithinPower(50)->point.mode, 1);
        QCOMPARE(front.lowestEnergyWithinTime(3.5)->point.mode, 2);
        QCOMPARE(front.lowestEnergyWithinTime(12)->point.mode, 1);
        const auto none = front.lowestEnergyWithinTime(2);
        QVERIFY(!none->fits);
        QCOMPARE(none->point.mode, 2);  // the fastest is the closest
    }

    void budgetBelowEveryMode()
    {
        const QVector<TradeoffPoint> points {{0, 12, 100}, {1, 20, 50}, {2, 30, 40}};
        const ParetoFront front(points);
        const std::optional<BudgetAnswer> answer = front.fastestWithin(11.9);
        QVERIFY(answer);
        QVERIFY(!answer->fits);
        QCOMPARE(answer->point.mode, 0);  // the lowest-power mode is the closest
        const std::optional<BudgetAnswer> tooFast = front.lowestPowerWithin(39);
        QVERIFY(!tooFast->fits);
        QCOMPARE(tooFast->point.mode, 2);
        QVERIFY(!ParetoFront(QVector<TradeoffPoint>()).fastestWithin(30));
    }

    void unusablePointsAreLeftOut()
    {
        // A diverged model predicts NaN, infinity or a negative value for some modes. Before
        // these were filtered, a NaN inside std::stable_sort could return modes never passed in.
        const double bad[] = {std::nan(""), std::numeric_limits<double>::infinity(), -3.0};
        for (quint64 seed = 0; seed < 50; ++seed) {
            QVector<TradeoffPoint> points = randomPoints(500, seed, seed % 2 == 0);
            QVector<TradeoffPoint> usable;
            std::mt19937_64 rng(seed);
            for (TradeoffPoint &p : points) {
                const int spoil = int(rng() % 10);  // 0: power, 1: time, 2: both, else none
                if (spoil <= 2) {
                    if (spoil != 1)
                        p.powerW = bad[rng() % 3];
                    if (spoil != 0)
                        p.timeMs = bad[rng() % 3];
                } else {
                    usable.append(p);
                }
            }
            const ParetoFront front(points);
            QCOMPARE(modes(front.powerTime()), modes(bruteForce(usable)));
            for (double budget : {1.0, 20.0, 50.0, 99.0}) {
                const auto answer = front.lowestEnergyWithinPower(budget);
                QVERIFY(answer);
                QVERIFY(std::isfinite(answer->point.energy()));
            }
        }
        const ParetoFront nothingUsable(QVector<TradeoffPoint>(3, {0, std::nan(""), 1}));
        QVERIFY(nothingUsable.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestParetoFront)
#include "test_paretofront.moc"
