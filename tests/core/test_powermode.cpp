#include "modes/powermode.h"

#include <QTest>

using namespace ptwb;

class TestPowerMode : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("cores");
        QTest::addColumn<qint64>("cpu");
        QTest::addColumn<qint64>("gpu");
        QTest::addColumn<qint64>("emc");
        QTest::addColumn<int>("notation");
        QTest::newRow("canonical") << "12/2201600/1300500000/3199000000" << 12 << qint64(2201600)
                                   << qint64(1300500000) << qint64(3199000000) << 0;
        QTest::newRow("underscore") << "4_1036800_318750000_2133000000" << 4 << qint64(1036800)
                                    << qint64(318750000) << qint64(2133000000) << 1;
        QTest::newRow("spaces around")
            << "  8/1651200/522750000/3199000000 " << 8 << qint64(1651200) << qint64(522750000)
            << qint64(3199000000) << 0;
        // The short form is rounded to 10 MHz: exact values come from ModeSpace::parse.
        QTest::newRow("short") << "12c/2.20C/1.30G/3.20M" << 12 << qint64(2200000)
                               << qint64(1300000000) << qint64(3200000000) << 2;
    }

    void parse()
    {
        QFETCH(QString, text);
        QFETCH(int, cores);
        QFETCH(qint64, cpu);
        QFETCH(qint64, gpu);
        QFETCH(qint64, emc);
        QFETCH(int, notation);
        ModeNotation seen;
        const Expected<PowerMode> mode = PowerMode::parse(text, &seen);
        QVERIFY2(mode.ok(), qPrintable(mode.error()));
        QCOMPARE(mode->cores, cores);
        QCOMPARE(mode->cpuKHz, cpu);
        QCOMPARE(mode->gpuHz, gpu);
        QCOMPARE(mode->emcHz, emc);
        QCOMPARE(int(seen), notation);
    }

    void format_data()
    {
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<QString>("underscore");
        QTest::addColumn<QString>("shortForm");
        QTest::newRow("maxn") << "12/2201600/1300500000/3199000000"
                              << "12_2201600_1300500000_3199000000"
                              << "12c/2.20C/1.30G/3.20M";
        QTest::newRow("15W") << "4/1036800/318750000/2133000000"
                             << "4_1036800_318750000_2133000000"
                             << "4c/1.04C/0.32G/2.13M";
        QTest::newRow("lowest") << "1/115200/114750000/204000000"
                                << "1_115200_114750000_204000000"
                                << "1c/0.12C/0.11G/0.20M";
    }

    void format()
    {
        QFETCH(QString, canonical);
        QFETCH(QString, underscore);
        QFETCH(QString, shortForm);
        const Expected<PowerMode> mode = PowerMode::parse(canonical);
        QVERIFY(mode.ok());
        QCOMPARE(mode->toCanonical(), canonical);
        QCOMPARE(mode->toUnderscore(), underscore);
        QCOMPARE(mode->toShort(), shortForm);
        const Expected<PowerMode> again = PowerMode::parse(underscore);
        QVERIFY(again.ok());
        QCOMPARE(*again, *mode);
    }

    void rejects_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("empty") << ""
                               << "is not a power mode";
        QTest::newRow("three fields") << "12/2201600/1300500000"
                                      << "is not a power mode";
        QTest::newRow("five fields") << "12/1/2/3/4"
                                     << "is not a power mode";
        QTest::newRow("letters") << "12/22x1600/1300500000/3199000000"
                                 << "CPU frequency '22x1600' is not a positive whole number of kHz";
        QTest::newRow("zero cores") << "0/2201600/1300500000/3199000000"
                                    << "core count '0' is not a positive whole number";
        QTest::newRow("negative") << "12/2201600/-1/3199000000"
                                  << "GPU frequency '-1' is not a positive whole number of Hz";
        QTest::newRow("short bad suffix") << "12c/2.20C/1.30X/3.20M"
                                          << "should end in 'G'";
        QTest::newRow("short fractional cores") << "1.5c/2.20C/1.30G/3.20M"
                                                << "is not a whole number";
        QTest::newRow("mixed separators") << "12_2201600/1300500000/3199000000"
                                          << "is not a power mode";
    }

    void rejects()
    {
        QFETCH(QString, text);
        QFETCH(QString, fragment);
        const Expected<PowerMode> mode = PowerMode::parse(text);
        QVERIFY(!mode.ok());
        QVERIFY2(mode.error().contains(fragment), qPrintable(mode.error()));
    }

    void orderingAndHash()
    {
        const PowerMode a {4, 1036800, 318750000, 2133000000};
        const PowerMode b {4, 1036800, 318750000, 3199000000};
        QVERIFY(a < b);
        QVERIFY(!(b < a));
        QVERIFY(a != b);
        QVERIFY(qHash(a) != qHash(b));
        QCOMPARE(qHash(a), qHash(PowerMode {4, 1036800, 318750000, 2133000000}));
    }
};

QTEST_GUILESS_MAIN(TestPowerMode)
#include "test_powermode.moc"
