#include "client/nonfinitejson.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ptwb;

// Numbers JSON cannot hold become strings of themselves, so the message still reaches its call
// (issue 21).
class TestNonFiniteJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nonFiniteNumbersBecomeText_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("1e999") << QByteArray("{\"id\":3,\"ok\":true,\"result\":{\"w\":1e999}}")
                               << QByteArray("{\"id\":3,\"ok\":true,\"result\":{\"w\":\"1e999\"}}");
        QTest::newRow("-1E999") << QByteArray("{\"id\":3,\"w\":-1E999,\"x\":2.5}")
                                << QByteArray("{\"id\":3,\"w\":\"-1E999\",\"x\":2.5}");
        QTest::newRow("NaN and Infinity")
            << QByteArray("{\"id\":4,\"a\":NaN,\"b\":[Infinity,-Infinity,1e300]}")
            << QByteArray("{\"id\":4,\"a\":\"NaN\",\"b\":[\"Infinity\",\"-Infinity\",1e300]}");
        QTest::newRow("words inside strings stay")
            << QByteArray("{\"id\":5,\"s\":\"NaN \\\"1e999\\\" Infinity\",\"v\":NaN}")
            << QByteArray("{\"id\":5,\"s\":\"NaN \\\"1e999\\\" Infinity\",\"v\":\"NaN\"}");
    }

    void nonFiniteNumbersBecomeText()
    {
        QFETCH(QByteArray, line);
        QFETCH(QByteArray, expected);
        QVERIFY2(!QJsonDocument::fromJson(line).isObject(), "Qt refuses the line as it is");
        const std::optional<QByteArray> fixed = withNonFiniteNumbersAsText(line);
        QVERIFY(fixed);
        QCOMPARE(*fixed, expected);
        QVERIFY(QJsonDocument::fromJson(*fixed).isObject());
    }

    void aLineWithoutSuchNumbersIsLeftAlone_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::newRow("valid") << QByteArray(
            "{\"id\":1,\"ok\":true,\"result\":{\"w\":20.5,\"e\":1e-3}}");
        QTest::newRow("cut off") << QByteArray("{\"id\":1,\"ok\":tr");
        QTest::newRow("malformed number") << QByteArray("{\"id\":1,\"w\":1.2.3}");
        QTest::newRow("unterminated string") << QByteArray("{\"id\":1,\"s\":\"NaN");
    }

    void aLineWithoutSuchNumbersIsLeftAlone()
    {
        QFETCH(QByteArray, line);
        QVERIFY(!withNonFiniteNumbersAsText(line));
    }
};

QTEST_GUILESS_MAIN(TestNonFiniteJson)
#include "test_nonfinitejson.moc"
