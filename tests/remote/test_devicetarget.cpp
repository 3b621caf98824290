#include "devicetarget.h"

#include <QTest>

using namespace ptwb;

class TestDeviceTarget : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("simulated");
        QTest::addColumn<QString>("kindOrHost");
        QTest::addColumn<QString>("user");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("sim") << "sim:orin-agx" << true << "orin-agx"
                             << "" << 22 << "sim:orin-agx";
        QTest::newRow("ssh default port") << "ssh://nvidia@jetson1" << false << "jetson1"
                                          << "nvidia" << 22 << "ssh://nvidia@jetson1";
        QTest::newRow("ssh port") << "ssh://me@192.168.55.1:2222" << false << "192.168.55.1"
                                  << "me" << 2222 << "ssh://me@192.168.55.1:2222";
        QTest::newRow("ipv6") << "ssh://me@[::1]:2200" << false << "::1"
                              << "me" << 2200 << "ssh://me@[::1]:2200";
    }

    void parses()
    {
        QFETCH(QString, text);
        QFETCH(bool, simulated);
        QFETCH(QString, kindOrHost);
        QFETCH(QString, user);
        QFETCH(int, port);
        QFETCH(QString, canonical);
        const Expected<DeviceTarget> target = DeviceTarget::parse(text);
        QVERIFY2(target.ok(), qPrintable(target.error()));
        QCOMPARE(target->kind == DeviceTarget::Kind::Simulated, simulated);
        QCOMPARE(simulated ? target->deviceKind : target->host, kindOrHost);
        QCOMPARE(target->user, user);
        QCOMPARE(target->port, port);
        QCOMPARE(target->toString(), canonical);
    }

    void rejects_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("unknown kind") << "sim:tx2"
                                      << "'tx2' is not a simulated device kind";
        QTest::newRow("scheme") << "telnet://x@y"
                                << "unknown scheme";
        QTest::newRow("no user") << "ssh://jetson"
                                 << "no user name";
        QTest::newRow("password") << "ssh://me:secret@jetson"
                                  << "a password does not belong in a target";
        QTest::newRow("path") << "ssh://me@jetson/tmp"
                              << "unexpected path";
        QTest::newRow("shell in user") << "ssh://$(reboot)@jetson"
                                       << "";
    }

    void rejects()
    {
        QFETCH(QString, text);
        QFETCH(QString, fragment);
        const Expected<DeviceTarget> target = DeviceTarget::parse(text);
        QVERIFY(!target.ok());
        QCOMPARE(target.errorKind(), ErrorKind::BadInput);
        QVERIFY2(target.error().contains(fragment), qPrintable(target.error()));
        QVERIFY2(target.error().contains(QStringLiteral("expected sim:KIND")),
                 qPrintable(target.error()));
        // The password never reaches an error message.
        QVERIFY2(!target.error().contains(QStringLiteral("secret")), qPrintable(target.error()));
    }

    void displayNameSaysSimulated()
    {
        const Expected<DeviceTarget> target = DeviceTarget::parse(QStringLiteral("sim:orin-agx"));
        QVERIFY(target.ok());
        QCOMPARE(target->displayName(), QStringLiteral("simulated Jetson AGX Orin (orin-agx)"));
    }
};

QTEST_GUILESS_MAIN(TestDeviceTarget)
#include "test_devicetarget.moc"
