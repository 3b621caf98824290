// A device's profile reply is refused, naming the field and the value, when its numbers are
// not a measurement: non-finite, absurd, out of order (q1 <= median <= q3), a peak below its
// median or beyond the device's power, a core count that only fits after narrowing to an int
// (issue 21, finding 8).
#include "modes/devicespec.h"
#include "wire.h"

#include <QJsonDocument>
#include <QTest>

#include <cmath>
#include <limits>

using namespace ptwb;

namespace {

QJsonObject goodReply()
{
    return QJsonDocument::fromJson(R"({
        "time_ms": {"median": 120.5, "q1": 118.0, "q3": 123.0},
        "power_w": {"median": 30.5, "q1": 30.0, "q3": 31.0, "max": 36.0},
        "minibatches": 30, "discarded": 10, "settle_s": 2.5, "settled": true,
        "boot_id": "b1",
        "mode": {"cores": 12, "cpu_khz": 2201600, "gpu_hz": 1300500000, "emc_hz": 3199000000}
    })")
        .object();
}

// `reply` with one number replaced: "time_ms.q1" -> value.
QJsonObject with(const QString &path, const QJsonValue &value)
{
    QJsonObject reply = goodReply();
    const QStringList parts = path.split(QLatin1Char('.'));
    QJsonObject inner = reply.value(parts[0]).toObject();
    inner.insert(parts[1], value);
    reply.insert(parts[0], inner);
    return reply;
}

PlausibleRanges orin()
{
    return plausibleRangesFor(DeviceSpec::builtin(QStringLiteral("orin-agx")).value());
}

}  // namespace

class TestWirePlausibility : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void anHonestReplyIsKept()
    {
        const Expected<ProfileResult> result = ProfileResult::fromJson(goodReply(), orin());
        QVERIFY2(result, qPrintable(result.error()));
        QCOMPARE(result->timeMs.median, 120.5);
        QCOMPARE(result->peakPowerW.value_or(0), 36.0);
        QCOMPARE(result->mode.cores, 12);
    }

    void anAbsurdReplyIsRefused_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("error");
        const double inf = std::numeric_limits<double>::infinity();
        QTest::newRow("time 1e300") << "time_ms.median" << QJsonValue(1e300)
                                    << "time_ms.median: 1e+300 ms, expected 0.001 to 3.6e+06 ms "
                                       "on orin-agx";
        QTest::newRow("time q3 inf")
            << "time_ms.q3" << QJsonValue(inf) << "time_ms.q3: inf, expected 0.001 to";
        QTest::newRow("power nan")
            << "power_w.q1" << QJsonValue(std::nan("")) << "power_w.q1: nan, expected 0.1 to";
        QTest::newRow("negative q1")
            << "time_ms.q1" << QJsonValue(-5.0) << "time_ms.q1: -5 ms, expected 0.001 to";
        QTest::newRow("q1 above median")
            << "time_ms.q1" << QJsonValue(200.0)
            << "time_ms.q1: 200 ms is above the median 120.5 ms, expected q1 <= median";
        QTest::newRow("q3 below median")
            << "power_w.q3" << QJsonValue(20.0)
            << "power_w.q3: 20 W is below the median 30.5 W, expected median <= q3";
        QTest::newRow("power of a kilowatt")
            << "power_w.median" << QJsonValue(1000.0) << "power_w.median: 1000 W, expected";
        QTest::newRow("peak beyond the device")
            << "power_w.max" << QJsonValue(400.0)
            << "power_w.max: 400 W, expected 0.1 to 150 W on orin-agx";
        QTest::newRow("peak below median")
            << "power_w.max" << QJsonValue(10.0) << "power_w.max: 10 W is below the median 30.5 W";
        QTest::newRow("peak not a number")
            << "power_w.max" << QJsonValue(QStringLiteral("hot")) << "field 'power_w.max'";
        QTest::newRow("cores beyond the device")
            << "mode.cores" << QJsonValue(13) << "mode.cores: 13, expected 1 to 12 cores";
        // 2^32 + 12 read as an int is 12: never narrowed.
        QTest::newRow("cores narrowed")
            << "mode.cores" << QJsonValue(4294967308.0) << "field 'mode.cores': expected at most";
    }

    void anAbsurdReplyIsRefused()
    {
        QFETCH(QString, field);
        QFETCH(QJsonValue, value);
        QFETCH(QString, error);
        const Expected<ProfileResult> result = ProfileResult::fromJson(with(field, value), orin());
        QVERIFY(!result);
        QVERIFY2(result.error().contains(error), qPrintable(result.error()));
    }

    // Without a device kind the widest ranges hold: 1e300 is still no minibatch time.
    void anyJetsonStillRefusesTheAbsurd()
    {
        QVERIFY(!ProfileResult::fromJson(with(QStringLiteral("time_ms.median"), 1e300)));
        QVERIFY(ProfileResult::fromJson(with(QStringLiteral("power_w.max"), 400.0)));
    }

    // hello's tables are not narrowed either.
    void helloTablesAreNotNarrowed()
    {
        QJsonObject hello = QJsonDocument::fromJson(R"({
            "agent_version": "1", "model": "m", "boot_id": "b",
            "tables": {"cores": [4294967308], "cpu_khz": [2201600], "gpu_hz": [1300500000],
                       "emc_hz": [3199000000]},
            "mode": {"cores": 12, "cpu_khz": 2201600, "gpu_hz": 1300500000, "emc_hz": 3199000000}
        })")
                                .object();
        const Expected<DeviceInfo> info = DeviceInfo::fromJson(hello);
        QVERIFY(!info);
        QVERIFY2(info.error().contains(QLatin1String("tables.cores")), qPrintable(info.error()));
    }

    // A zone at 1e300 °C would pause a sweep for ever (it never cools): it is no reading.
    void anImpossibleTemperatureIsNoReading()
    {
        QJsonObject hello = QJsonDocument::fromJson(R"({
            "agent_version": "1", "model": "m", "boot_id": "b",
            "tables": {"cores": [1, 12], "cpu_khz": [2201600], "gpu_hz": [1300500000],
                       "emc_hz": [3199000000]},
            "thermal": [{"zone": "hostile", "temp_c": 1e300}, {"zone": "cpu", "temp_c": 45.5}],
            "mode": {"cores": 12, "cpu_khz": 2201600, "gpu_hz": 1300500000, "emc_hz": 3199000000}
        })")
                                .object();
        const Expected<DeviceInfo> info = DeviceInfo::fromJson(hello);
        QVERIFY2(info, qPrintable(info.error()));
        QCOMPARE(info->hottestC, 45.5);
        QCOMPARE(info->hottestZone, QStringLiteral("cpu"));
    }
};

QTEST_GUILESS_MAIN(TestWirePlausibility)
#include "test_wireplausibility.moc"
