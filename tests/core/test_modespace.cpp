#include "modes/modespace.h"

#include <QTest>

using namespace ptwb;

namespace {

DeviceSpec device(const QString &id)
{
    Expected<DeviceSpec> spec = DeviceSpec::builtin(id);
    if (!spec)
        qFatal("%s", qPrintable(spec.error()));
    return spec.value();
}

// The grid of the public PowerTrain measurements: even core counts, every other CPU frequency
// from the third one up.
const QString kPowerTrainGrid = QStringLiteral("cores=even;cpu=every:2:2");

}  // namespace

class TestModeSpace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void counts_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<qint64>("count");
        QTest::newRow("orin-agx") << "orin-agx" << qint64(18096);
        QTest::newRow("xavier-agx") << "xavier-agx" << qint64(29232);
        QTest::newRow("orin-nano") << "orin-nano" << qint64(1800);
    }

    void counts()
    {
        QFETCH(QString, id);
        QFETCH(qint64, count);
        QCOMPARE(ModeSpace(device(id)).size(), count);
    }

    void indexRoundTripEveryMode_data() { counts_data(); }
    void indexRoundTripEveryMode()
    {
        QFETCH(QString, id);
        const ModeSpace space(device(id));
        QSet<PowerMode> seen;
        seen.reserve(space.size());
        for (qint64 i = 0; i < space.size(); ++i) {
            const PowerMode mode = space.mode(i);
            if (space.indexOf(mode) != i)
                QFAIL(qPrintable(QStringLiteral("index %1 -> %2 -> %3")
                                     .arg(i)
                                     .arg(mode.toCanonical())
                                     .arg(space.indexOf(mode))));
            seen.insert(mode);
        }
        QCOMPARE(qint64(seen.size()), space.size());
        QCOMPARE(space.indexOf(PowerMode {13, 115200, 114750000, 204000000}), qint64(-1));
    }

    void powerTrainGrid()
    {
        const Expected<ModeSpace> grid =
            ModeSpace::subGrid(device(QStringLiteral("orin-agx")), kPowerTrainGrid);
        QVERIFY2(grid.ok(), qPrintable(grid.error()));
        QCOMPARE(grid->size(), qint64(4368));
        QCOMPARE(grid->values(Dimension::Cores), (QVector<qint64> {2, 4, 6, 8, 10, 12}));
        QCOMPARE(grid->values(Dimension::Cpu).size(), 14);
        QCOMPARE(grid->values(Dimension::Cpu).front(), qint64(268800));
        QCOMPARE(grid->values(Dimension::Cpu).back(), qint64(2201600));
        QCOMPARE(grid->values(Dimension::Gpu).size(), 13);
        for (qint64 i = 0; i < grid->size(); ++i)
            QCOMPARE(grid->indexOf(grid->mode(i)), i);
    }

    void presetsOnPowerTrainGrid_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("mode");
        QTest::newRow("MODE_15W") << "MODE_15W"
                                  << "4/1036800/318750000/2133000000";
        QTest::newRow("MODE_30W") << "MODE_30W"
                                  << "8/1651200/522750000/3199000000";
        QTest::newRow("MODE_50W") << "MODE_50W"
                                  << "12/1497600/726750000/3199000000";
        QTest::newRow("MAXN") << "MAXN"
                              << "12/2201600/1300500000/3199000000";
    }

    void presetsOnPowerTrainGrid()
    {
        QFETCH(QString, preset);
        QFETCH(QString, mode);
        const DeviceSpec orin = device(QStringLiteral("orin-agx"));
        const Expected<ModeSpace> grid = ModeSpace::subGrid(orin, kPowerTrainGrid);
        QVERIFY(grid.ok());
        const std::optional<PowerMode> mapped = grid->presetMode(*orin.preset(preset));
        QVERIFY(mapped.has_value());
        QCOMPARE(mapped->toCanonical(), mode);
    }

    void presetsOnFullTable()
    {
        const DeviceSpec orin = device(QStringLiteral("orin-agx"));
        const ModeSpace space(orin);
        // On the full table the 15 W CPU cap 1113600 is itself a table value.
        QCOMPARE(space.presetMode(*orin.preset(QStringLiteral("MODE_15W")))->toCanonical(),
                 QStringLiteral("4/1113600/318750000/2133000000"));
        Preset impossible {QStringLiteral("tiny"), 9, 4, 1000, 318750000, 2133000000};
        QVERIFY(!space.presetMode(impossible).has_value());
    }

    void subGridSelectors_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<qint64>("count");
        QTest::newRow("empty is everything") << "" << qint64(18096);
        QTest::newRow("odd cores") << "cores=odd" << qint64(6 * 29 * 13 * 4);
        QTest::newRow("range") << "gpu=114750000..420750000" << qint64(12 * 29 * 4 * 4);
        QTest::newRow("list") << "mem=204000000,3199000000;cores=12" << qint64(29 * 13 * 2);
        QTest::newRow("every 4") << "cpu=every:4" << qint64(12 * 8 * 13 * 4);
        QTest::newRow("emc alias and spaces")
            << " emc = 3199000000 ; cores = all " << qint64(12 * 29 * 13);
    }

    void subGridSelectors()
    {
        QFETCH(QString, spec);
        QFETCH(qint64, count);
        const Expected<ModeSpace> grid =
            ModeSpace::subGrid(device(QStringLiteral("orin-agx")), spec);
        QVERIFY2(grid.ok(), qPrintable(grid.error()));
        QCOMPARE(grid->size(), count);
    }

    void subGridErrors_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown dimension")
            << "fan=max"
            << "grid 'fan=max': expected DIMENSION=SELECTOR with DIMENSION one of "
               "cores, cpu, gpu, mem";
        QTest::newRow("even frequency")
            << "cpu=even"
            << "grid 'cpu=even': 'even' and 'odd' apply to core counts only; use "
               "every:2 for every other frequency";
        QTest::newRow("zero step") << "cpu=every:0"
                                   << "grid 'cpu=every:0': expected every:N or every:N:START with "
                                      "N >= 1 and START >= 0";
        QTest::newRow("missing value")
            << "gpu=1300000000"
            << "grid 'gpu=1300000000': '1300000000' is not a GPU frequency "
               "of orin-agx";
        QTest::newRow("empty range") << "cores=13..20"
                                     << "grid 'cores=13..20': selects no core count";
        QTest::newRow("twice") << "cores=2;cores=4"
                               << "grid 'cores=4': cores is selected twice";
    }

    void subGridErrors()
    {
        QFETCH(QString, spec);
        QFETCH(QString, error);
        const Expected<ModeSpace> grid =
            ModeSpace::subGrid(device(QStringLiteral("orin-agx")), spec);
        QVERIFY(!grid.ok());
        QCOMPARE(grid.error(), error);
    }

    void validateNamesFieldAndNearest_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("error");
        QTest::newRow("gpu between values")
            << "12/2201600/1300000000/3199000000"
            << "field 'gpu': 1300000000 Hz is not a GPU frequency of orin-agx; nearest allowed: "
               "1236750000, 1300500000";
        QTest::newRow("cpu above max")
            << "12/2300000/1300500000/3199000000"
            << "field 'cpu': 2300000 kHz is not a CPU frequency of orin-agx; nearest allowed: "
               "2201600";
        QTest::newRow("emc below min")
            << "12/2201600/1300500000/100000000"
            << "field 'mem': 100000000 Hz is not a memory frequency of orin-agx; nearest "
               "allowed: 204000000";
        QTest::newRow("cores out of range")
            << "13/2201600/1300500000/3199000000"
            << "field 'cores': 13 is out of range; orin-agx has 1..12 cores";
    }

    void validateNamesFieldAndNearest()
    {
        QFETCH(QString, mode);
        QFETCH(QString, error);
        const ModeSpace space(device(QStringLiteral("orin-agx")));
        const Status status = space.validate(*PowerMode::parse(mode));
        QVERIFY(!status.ok());
        QCOMPARE(status.error(), error);
    }

    void parseSnapsShortForm_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("maxn") << "orin-agx"
                              << "12c/2.20C/1.30G/3.20M"
                              << "12/2201600/1300500000/3199000000";
        QTest::newRow("neighbour cpu") << "orin-agx"
                                       << "12c/2.19C/1.30G/3.20M"
                                       << "12/2188800/1300500000/3199000000";
        QTest::newRow("lowest") << "orin-agx"
                                << "1c/0.12C/0.11G/0.20M"
                                << "1/115200/114750000/204000000";
        QTest::newRow("xavier close gpus") << "xavier-agx"
                                           << "8c/2.27C/1.34G/2.13M"
                                           << "8/2265600/1338750000/2133000000";
        QTest::newRow("canonical passes through") << "orin-nano"
                                                  << "6/1510400/624750000/2133000000"
                                                  << "6/1510400/624750000/2133000000";
        QTest::newRow("underscore") << "orin-nano"
                                    << "6_1510400_612000000_2133000000"
                                    << "6/1510400/612000000/2133000000";
    }

    void parseSnapsShortForm()
    {
        QFETCH(QString, id);
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        const ModeSpace space(device(id));
        const Expected<PowerMode> mode = space.parse(text);
        QVERIFY2(mode.ok(), qPrintable(mode.error()));
        QCOMPARE(mode->toCanonical(), canonical);
        // Every mode's short form reads back to itself on these tables.
        QCOMPARE(space.parse(mode->toShort())->toCanonical(), canonical);
    }

    void shortFormRoundTripsEveryMode_data() { counts_data(); }
    void shortFormRoundTripsEveryMode()
    {
        QFETCH(QString, id);
        const ModeSpace space(device(id));
        for (qint64 i = 0; i < space.size(); i += 7) {
            const PowerMode mode = space.mode(i);
            const Expected<PowerMode> back = space.parse(mode.toShort());
            if (!back || *back != mode)
                QFAIL(qPrintable(mode.toCanonical() + QStringLiteral(" -> ") + mode.toShort()));
        }
    }

    void parseRejectsModeNotOnDevice()
    {
        const ModeSpace space(device(QStringLiteral("orin-nano")));
        const Expected<PowerMode> mode = space.parse(QStringLiteral("12c/2.20C/1.30G/3.20M"));
        QVERIFY(!mode.ok());
        QCOMPARE(mode.error(),
                 QStringLiteral("'12c/2.20C/1.30G/3.20M': field 'cores': 12 is out "
                                "of range; orin-nano has 1..6 cores"));
    }
};

QTEST_GUILESS_MAIN(TestModeSpace)
#include "test_modespace.moc"
