// The order of a sweep's modes: high to low for every device, and chains of falling clocks for
// a device that accepts decreasing changes only (a reboot between two chains).
#include "modes/devicespec.h"
#include "modes/modespace.h"
#include "sweep/sweepplan.h"

#include <QHash>
#include <QTest>

#include <algorithm>
#include <random>

using namespace ptwb;

namespace {

PowerMode mode(int cores, qint64 cpuKHz, qint64 gpuHz, qint64 emcHz)
{
    PowerMode m;
    m.cores = cores;
    m.cpuKHz = cpuKHz;
    m.gpuHz = gpuHz;
    m.emcHz = emcHz;
    return m;
}

QStringList canonical(QVector<PowerMode> modes)
{
    SweepPlan::orderHighToLow(modes);
    QStringList out;
    for (const PowerMode &m : modes)
        out << m.toCanonical();
    return out;
}

// Consecutive pairs where some dimension goes up: a reboot each on a decreasing-only device.
int raises(const QVector<PowerMode> &modes)
{
    int count = 0;
    for (int i = 1; i < modes.size(); ++i)
        count += SweepPlan::lowersOrKeeps(modes[i - 1], modes[i]) ? 0 : 1;
    return count;
}

QVector<PowerMode> gridModes(const QString &spec)
{
    const ModeSpace grid =
        ModeSpace::subGrid(DeviceSpec::builtin(QStringLiteral("orin-agx")).value(), spec).value();
    QVector<PowerMode> modes;
    for (qint64 i = 0; i < grid.size(); ++i)
        modes.append(grid.mode(i));
    return modes;
}

// The fewest chains any order can have on a full grid: its largest antichain (Dilworth), which
// for a product of chains is its most populous rank level (de Bruijn et al.): the modes whose
// table positions sum to the same number.
int largestAntichain(const QVector<PowerMode> &modes)
{
    QVector<QVector<qint64>> values(kDimensionCount);
    for (const PowerMode &m : modes) {
        for (int d = 0; d < kDimensionCount; ++d)
            values[d].append(m.value(Dimension(d)));
    }
    for (QVector<qint64> &v : values) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    QHash<int, int> levels;
    int largest = 0;
    for (const PowerMode &m : modes) {
        int rank = 0;
        for (int d = 0; d < kDimensionCount; ++d)
            rank +=
                int(std::lower_bound(values[d].cbegin(), values[d].cend(), m.value(Dimension(d))) -
                    values[d].cbegin());
        largest = std::max(largest, ++levels[rank]);
    }
    return largest;
}

}  // namespace

class TestSweepPlan : public QObject
{
    Q_OBJECT

    // `ordered` holds every mode of `modes` exactly once, falls or stays in every dimension
    // inside each chain (so `chains` - 1 raises in all), and each chain starts at the highest
    // mode left (the greedy rule).
    void verifyChains(const QVector<PowerMode> &modes, const QVector<PowerMode> &ordered,
                      int chains)
    {
        QCOMPARE(canonical(ordered), canonical(modes));
        QCOMPARE(raises(ordered), modes.isEmpty() ? 0 : chains - 1);
        for (int i = 1; i < ordered.size(); ++i) {
            if (SweepPlan::lowersOrKeeps(ordered[i - 1], ordered[i]))
                continue;
            for (int j = i + 1; j < ordered.size(); ++j)
                QVERIFY2(!SweepPlan::higherFirst(ordered[j], ordered[i]),
                         qPrintable(QStringLiteral("chain start %1 is not the highest left (%2)")
                                        .arg(ordered[i].toCanonical(), ordered[j].toCanonical())));
        }
    }

private Q_SLOTS:
    void batchSizeLists_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QVector<int>>("sizes");
        QTest::addColumn<QString>("error");
        QTest::newRow("empty") << QString() << QVector<int>() << QString();
        QTest::newRow("order kept")
            << QStringLiteral("32, 1,4") << QVector<int> {32, 1, 4} << QString();
        QTest::newRow("largest") << QStringLiteral("4096") << QVector<int> {4096} << QString();
        QTest::newRow("zero") << QStringLiteral("1,0") << QVector<int>()
                              << QStringLiteral("'0': expected a minibatch size of 1 to 4096 (a "
                                                "list such as 1,4,16,32,64)");
        QTest::newRow("too large") << QStringLiteral("4097") << QVector<int>()
                                   << QStringLiteral("'4097': expected a minibatch size of 1 to "
                                                     "4096 (a list such as 1,4,16,32,64)");
        QTest::newRow("text") << QStringLiteral("8,sixteen") << QVector<int>()
                              << QStringLiteral("'sixteen': expected a minibatch size of 1 to "
                                                "4096 (a list such as 1,4,16,32,64)");
        QTest::newRow("empty entry") << QStringLiteral("8,,16") << QVector<int>()
                                     << QStringLiteral("'': expected a minibatch size of 1 to "
                                                       "4096 (a list such as 1,4,16,32,64)");
        QTest::newRow("twice") << QStringLiteral("8,16,8") << QVector<int>()
                               << QStringLiteral("8 is listed twice");
        QStringList many;
        for (int i = 1; i <= 33; ++i)
            many.append(QString::number(i));
        QTest::newRow("too many") << many.join(QLatin1Char(',')) << QVector<int>()
                                  << QStringLiteral("33 batch sizes; expected at most 32");
    }

    void batchSizeLists()
    {
        QFETCH(QString, text);
        QFETCH(QVector<int>, sizes);
        QFETCH(QString, error);
        const Expected<QVector<int>> parsed = SweepPlan::parseBatchSizes(text);
        if (error.isEmpty()) {
            QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
            QCOMPARE(*parsed, sizes);
        } else {
            QVERIFY(!parsed.ok());
            QCOMPARE(parsed.error(), error);
            QCOMPARE(parsed.field(), InputField::BatchSizes);
        }
    }

    void lowersOrKeepsLooksAtEveryDimension()
    {
        const PowerMode high = mode(8, 1728000, 918000000, 3199000000);
        QVERIFY(SweepPlan::lowersOrKeeps(high, high));
        QVERIFY(SweepPlan::lowersOrKeeps(high, mode(4, 729600, 612000000, 2133000000)));
        QVERIFY(!SweepPlan::lowersOrKeeps(high, mode(12, 729600, 612000000, 2133000000)));
        QVERIFY(!SweepPlan::lowersOrKeeps(high, mode(4, 2201600, 612000000, 2133000000)));
        QVERIFY(!SweepPlan::lowersOrKeeps(high, mode(4, 729600, 1300500000, 2133000000)));
        QVERIFY(!SweepPlan::lowersOrKeeps(mode(4, 729600, 612000000, 2133000000), high));
    }

    void chainsOfAHandfulOfModes()
    {
        const PowerMode maxn = mode(12, 2201600, 1300500000, 3199000000);
        const PowerMode lowMemoryFast = mode(8, 1728000, 918000000, 2133000000);
        const PowerMode fastMemorySlow = mode(4, 729600, 612000000, 3199000000);
        const PowerMode lowest = mode(2, 499200, 306000000, 204000000);
        const QVector<PowerMode> modes {lowest, lowMemoryFast, maxn, fastMemorySlow};

        QVector<PowerMode> highToLow = modes;
        SweepPlan::orderHighToLow(highToLow);
        QCOMPARE(highToLow, (QVector<PowerMode> {maxn, fastMemorySlow, lowMemoryFast, lowest}));
        QCOMPARE(raises(highToLow), 1);  // fastMemorySlow -> lowMemoryFast raises cores...

        QVector<PowerMode> chains = modes;
        QCOMPARE(SweepPlan::orderInDecreasingChains(chains), 2);
        QCOMPARE(chains, (QVector<PowerMode> {maxn, fastMemorySlow, lowest, lowMemoryFast}));
        verifyChains(modes, chains, 2);
    }

    void repeatsStayTogetherAndNothingIsNoChain()
    {
        const PowerMode a = mode(8, 1728000, 918000000, 3199000000);
        const PowerMode b = mode(12, 729600, 612000000, 2133000000);
        const QVector<PowerMode> modes {a, b, a, b};
        QVector<PowerMode> chains = modes;
        QCOMPARE(SweepPlan::orderInDecreasingChains(chains), 2);
        QCOMPARE(chains, (QVector<PowerMode> {a, a, b, b}));
        verifyChains(modes, chains, 2);

        QVector<PowerMode> none;
        QCOMPARE(SweepPlan::orderInDecreasingChains(none), 0);
        QVERIFY(none.isEmpty());
    }

    void randomSubsetsKeepTheirModes()
    {
        const QVector<PowerMode> all = gridModes(QStringLiteral("cores=even;cpu=every:2:2"));
        std::mt19937 rng(11);
        for (int size : {1, 12, 100, 500}) {
            QVector<PowerMode> modes = all;
            std::shuffle(modes.begin(), modes.end(), rng);
            modes.resize(size);
            QVector<PowerMode> chains = modes;
            const int count = SweepPlan::orderInDecreasingChains(chains);
            verifyChains(modes, chains, count);
            QVector<PowerMode> highToLow = modes;
            SweepPlan::orderHighToLow(highToLow);
            QVERIFY(count - 1 <= raises(highToLow));
        }
    }

    // The sweep runner takes modes one at a time with nextInChain (the queue may change under
    // it); from the top of a fixed set that is the order orderInDecreasingChains plans.
    void takingModesOneByOneGivesTheChainOrder()
    {
        const QVector<PowerMode> all = gridModes(QStringLiteral("cores=even;cpu=every:2:2"));
        std::mt19937 rng(5);
        for (int size : {1, 30, 400}) {
            QVector<PowerMode> modes = all;
            std::shuffle(modes.begin(), modes.end(), rng);
            modes.resize(size);
            QVector<PowerMode> planned = modes;
            SweepPlan::orderInDecreasingChains(planned);
            QVector<PowerMode> pending = modes;
            QVector<PowerMode> taken;
            PowerMode at = DeviceSpec::builtin(QStringLiteral("orin-agx")).value().maxMode();
            while (!pending.isEmpty()) {
                const int next = SweepPlan::nextInChain(at, pending);
                QVERIFY(next >= 0);
                at = pending.takeAt(next);
                taken.append(at);
            }
            QCOMPARE(taken, planned);
        }
        QCOMPARE(SweepPlan::nextInChain(PowerMode(), {}), -1);
    }

    // The reboots a decreasing-only AGX Orin needs for the public grid (4,368 modes) and for
    // every mode (18,096): one per chain, against one per raise in high-to-low order.
    void rebootsOnTheOrinGrids_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("size");
        QTest::newRow("public grid") << QStringLiteral("cores=even;cpu=every:2:2") << 4368;
        QTest::newRow("every mode") << QStringLiteral("") << 18096;
    }

    void rebootsOnTheOrinGrids()
    {
        QFETCH(QString, spec);
        QFETCH(int, size);
        const QVector<PowerMode> modes = spec.isEmpty()
            ? gridModes(QStringLiteral("cores=all;cpu=all;gpu=all;emc=all"))
            : gridModes(spec);
        QCOMPARE(modes.size(), size);
        QVector<PowerMode> highToLow = modes;
        SweepPlan::orderHighToLow(highToLow);
        const int highToLowRaises = raises(highToLow);

        QVector<PowerMode> chains = modes;
        const int count = SweepPlan::orderInDecreasingChains(chains);
        verifyChains(modes, chains, count);
        qInfo("%d modes: %d chains in decreasing-chain order (%d reboots between chains, one "
              "more to reach the first if the device is not at its top mode); high-to-low order "
              "raises a clock %d times",
              int(modes.size()), count, count - 1, highToLowRaises);
        QVERIFY(count - 1 < highToLowRaises);
        // On a full grid the greedy chains are as few as any order can have.
        QCOMPARE(count, largestAntichain(modes));
    }
};

QTEST_GUILESS_MAIN(TestSweepPlan)
#include "test_sweepplan.moc"
