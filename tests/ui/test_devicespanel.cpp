#include "adddevicedialog.h"
#include "deviceclient.h"
#include "devicedetails.h"
#include "devicelist.h"
#include "devicemonitor.h"
#include "devicesetupdialog.h"
#include "devicespanel.h"
#include "devicetransports.h"
#include "localprocesstransport.h"
#include "simulatorlauncher.h"
#include "sparkline.h"
#include "sshtransport.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace ptwb;
using namespace ptwb::ui;

class TestDevicesPanel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_instances = 0;

    QString writeKeyFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("id_test"));
        QFile file(path);
        if (file.open(QIODevice::WriteOnly))
            file.write("-----BEGIN OPENSSH PRIVATE KEY-----\n");
        return path;
    }

    // A client on a fresh simulated AGX Orin with its own state directory (not connected yet).
    std::unique_ptr<DeviceClient> simulator(const QStringList &faults = {})
    {
        SimulatorOptions options;
        options.stateDirectory = m_dir.filePath(QStringLiteral("sim%1").arg(++m_instances));
        options.faults = faults;
        Expected<LocalProcessTransport *> transport = SimulatorLauncher::transport(options);
        if (!transport) {
            qWarning("%s", qPrintable(transport.error()));
            return nullptr;
        }
        return std::make_unique<DeviceClient>(*transport);
    }

    static QString labelText(const QWidget &parent, const char *name)
    {
        auto *label = parent.findChild<QLabel *>(QLatin1String(name));
        return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // A throwaway settings file: nothing here touches the person's own.
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("ptwb-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_devicespanel"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
    }

    void init() { QSettings().clear(); }

    void firstRunPreselectsTheSimulatedAgxOrin()
    {
        DevicesPanel panel;
        const QVector<DeviceEntry> entries = panel.entries();
        QVERIFY(!entries.isEmpty());
        QCOMPARE(entries.first().target, QStringLiteral("sim:orin-agx"));
        QVERIFY(entries.first().simulated());
        QVERIFY(entries.first().name.contains(QLatin1String("Simulated")));
        QCOMPARE(panel.currentEntry().target, QStringLiteral("sim:orin-agx"));
        // Built in: cannot be removed, and its helper needs no setup.
        QVERIFY(!panel.removeDeviceAction()->isEnabled());
        QVERIFY(!panel.setupDeviceAction()->isEnabled());
        panel.setupCurrent();
        QVERIFY(!panel.findChild<DeviceSetupDialog *>());
        panel.removeCurrent();
        QCOMPARE(panel.entries(), entries);

        QSignalSpy chosen(&panel, &DevicesPanel::deviceChosen);
        panel.connectDeviceAction()->trigger();
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.at(0).at(0).value<DeviceEntry>().target, QStringLiteral("sim:orin-agx"));
    }

    void addedDevicePersistsAcrossPanels()
    {
        const QString key = writeKeyFile();
        {
            DevicesPanel panel;
            const int before = int(panel.entries().size());
            panel.addDevice();
            auto *dialog = panel.findChild<AddDeviceDialog *>();
            QVERIFY(dialog);
            QTRY_VERIFY(dialog->isVisible());
            dialog->setFields({QStringLiteral("lab orin"), QStringLiteral("orin.local"),
                               QStringLiteral("2222"), QStringLiteral("nvidia"), key});
            dialog->accept();
            QCOMPARE(dialog->errorText(), QString());
            QCOMPARE(panel.entries().size(), before + 1);
            const DeviceEntry added = panel.entries().last();
            QCOMPARE(added.name, QStringLiteral("lab orin"));
            QCOMPARE(added.target, QStringLiteral("ssh://nvidia@orin.local:2222"));
            QCOMPARE(added.keyFile, key);
            QCOMPARE(panel.currentEntry(), added);  // the new one is selected
            QVERIFY(panel.removeDeviceAction()->isEnabled());

            // Set up opens its dialog for this device, asking for the sudo password hidden.
            QVERIFY(panel.setupDeviceAction()->isEnabled());
            panel.setupDeviceAction()->trigger();
            auto *setup = panel.findChild<DeviceSetupDialog *>();
            QVERIFY(setup);
            QTRY_VERIFY(setup->isVisible());
            QVERIFY(setup->windowTitle().contains(QLatin1String("lab orin")));
            QCOMPARE(setup->findChild<QLineEdit *>(QStringLiteral("sudoPassword"))->echoMode(),
                     QLineEdit::Password);
            QVERIFY(!setup->isRunning());
            setup->reject();
        }
        {
            DevicesPanel panel;
            const DeviceEntry stored = panel.entries().last();
            QCOMPARE(stored.target, QStringLiteral("ssh://nvidia@orin.local:2222"));
            QCOMPARE(stored.keyFile, key);
            // Not chosen yet: the simulated Orin is still the one preselected.
            QCOMPARE(panel.currentEntry().target, QStringLiteral("sim:orin-agx"));

            // Remove, undo, remove again: what is stored follows.
            QVERIFY(panel.setCurrentTarget(stored.target));
            panel.removeDeviceAction()->trigger();
            QCOMPARE(panel.entries().last().simulated(), true);
            panel.undoRemove();
            QCOMPARE(panel.entries().last(), stored);
            panel.removeCurrent();
        }
        QVERIFY(DevicesPanel().entries().last().simulated());
    }

    void invalidFieldsAreRefused_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("port");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("keyFile");
        QTest::addColumn<QString>("named");
        QTest::newRow("port out of range") << "orin"
                                           << "70000"
                                           << "nvidia"
                                           << ""
                                           << "Port";
        QTest::newRow("port not a number") << "orin"
                                           << "ssh"
                                           << "nvidia"
                                           << ""
                                           << "Port";
        QTest::newRow("missing key file") << "orin"
                                          << "22"
                                          << "nvidia"
                                          << "/nonexistent/id_ed25519"
                                          << "Key file";
        QTest::newRow("empty host") << ""
                                    << "22"
                                    << "nvidia"
                                    << ""
                                    << "Host";
        QTest::newRow("host with a space") << "my orin"
                                           << "22"
                                           << "nvidia"
                                           << ""
                                           << "Host";
        QTest::newRow("bad user") << "orin"
                                  << "22"
                                  << "nv idia"
                                  << ""
                                  << "User";
        QTest::newRow("no user") << "orin"
                                 << "22"
                                 << ""
                                 << ""
                                 << "User";
        QTest::newRow("already listed") << "known"
                                        << "22"
                                        << "nvidia"
                                        << ""
                                        << "Host";
    }

    void invalidFieldsAreRefused()
    {
        QFETCH(QString, host);
        QFETCH(QString, port);
        QFETCH(QString, user);
        QFETCH(QString, keyFile);
        QFETCH(QString, named);
        QVector<DeviceEntry> existing = DeviceList::builtinEntries();
        existing.append({QStringLiteral("known"), QStringLiteral("ssh://nvidia@known"), {}});
        AddDeviceDialog dialog(existing);
        dialog.show();
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.setFields({QString(), host, port, user, keyFile});
        dialog.accept();
        QCOMPARE(accepted.count(), 0);
        QVERIFY(dialog.isVisible());
        QVERIFY2(dialog.errorText().startsWith(named + QLatin1Char(':')),
                 qPrintable(dialog.errorText()));
        // Fixing the field lets it through.
        dialog.setFields({QString(), QStringLiteral("orin"), QStringLiteral("22"),
                          QStringLiteral("nvidia"), QString()});
        dialog.accept();
        QCOMPARE(accepted.count(), 1);
        QCOMPARE(dialog.entry().target, QStringLiteral("ssh://nvidia@orin"));
        QCOMPARE(dialog.entry().name, QStringLiteral("nvidia@orin"));
    }

    void keyFileReachesTheTransport()
    {
        // Only builds the transport: nothing connects to orin.local.
        Expected<Transport *> transport = deviceTransport(
            DeviceEntry {QStringLiteral("x"), QStringLiteral("ssh://nvidia@orin.local:2222"),
                         QStringLiteral("/keys/id_lab")},
            nullptr);
        QVERIFY2(transport, qPrintable(transport.error()));
        std::unique_ptr<Transport> owned(*transport);
        QCOMPARE(owned->description(), QStringLiteral("nvidia@orin.local:2222"));
        auto *ssh = qobject_cast<SshTransport *>(owned.get());
        QVERIFY(ssh);
        QCOMPARE(ssh->options().identityFiles.value(0), QStringLiteral("/keys/id_lab"));
        QCOMPARE(ssh->options().port, 2222);
        QVERIFY(ssh->options().prompts);  // the dialogs, not the refusing default
        QVERIFY(!deviceTransport(
            DeviceEntry {QStringLiteral("x"), QStringLiteral("ssh://nvidia@orin:99999"), QString()},
            nullptr));
        QVERIFY(!deviceTransport(
            DeviceEntry {QStringLiteral("x"), QStringLiteral("sim:nonesuch"), QString()}, nullptr));
    }

    void connectedSimulatorShowsModelModeAndPower()
    {
        auto client = simulator();
        QVERIFY(client);
        DevicesPanel panel;
        panel.resize(900, 520);
        panel.show();
        QSignalSpy chosen(&panel, &DevicesPanel::deviceChosen);
        panel.connectCurrent();
        QCOMPARE(chosen.count(), 1);
        panel.setClient(client.get());
        client->connectToDevice();
        DeviceDetailsView *details = panel.details();
        QTRY_COMPARE_WITH_TIMEOUT(details->state(), DeviceDetailsView::State::Connected, 30000);

        const DeviceInfo &info = client->info();
        QVERIFY(info.simulated);
        QCOMPARE(labelText(*details, "deviceModel"), info.model);
        QVERIFY(labelText(*details, "deviceModel").contains(QLatin1String("AGX Orin")));
        QCOMPARE(labelText(*details, "deviceL4t"), info.l4t);
        QCOMPARE(labelText(*details, "deviceModeCanonical"), info.mode.toCanonical());
        QCOMPARE(labelText(*details, "deviceModeShort"), info.mode.toShort());
        QVERIFY2(labelText(*details, "deviceHelper").startsWith(QLatin1String("simulated")),
                 qPrintable(labelText(*details, "deviceHelper")));
        QVERIFY(!panel.connectDeviceAction()->isEnabled());  // already connected to it

        Sparkline *sparkline = details->sparkline();
        QTRY_VERIFY_WITH_TIMEOUT(sparkline->sampleCount() >= 3, 15000);
        QVERIFY(sparkline->current() > 1 && sparkline->current() < 100);
        QVERIFY(sparkline->minimum() <= sparkline->maximum());

        // A mode applied elsewhere shows on the next mode read.
        PowerMode lower = info.mode;
        lower.gpuHz = info.gpuHz.at(info.gpuHz.size() / 2);
        QSignalSpy applied(client->applyMode(lower), &DeviceCall::finished);
        QTRY_COMPARE(applied.count(), 1);
        QVERIFY(applied.at(0).at(0).value<DeviceReply>().ok);
        details->monitor()->refreshMode();
        QTRY_COMPARE(labelText(*details, "deviceModeCanonical"), lower.toCanonical());

        if (const QByteArray shot = qgetenv("PTWB_DEVICES_SCREENSHOT"); !shot.isEmpty()) {
            QTRY_VERIFY_WITH_TIMEOUT(sparkline->sampleCount() >= 40, 30000);
            QVERIFY(panel.grab().save(QString::fromLocal8Bit(shot)));
        }

        // Hidden or suspended: no more polling.
        panel.hide();
        QVERIFY(!details->monitor()->isPolling());
        panel.show();
        QVERIFY(details->monitor()->isPolling());
        details->monitor()->setSuspended(true);
        QVERIFY(!details->monitor()->isPolling());
        details->monitor()->setSuspended(false);
        QVERIFY(details->monitor()->isPolling());
    }

    void outdatedHelperIsOfferedTheSetup()
    {
        // A device whose hello says its privileged helper is older than this workbench's (a
        // stand-in agent that answers hello only; without the helper the tables are not whole):
        // the details say why and offer Set up for the device the client was made for.
        DevicesPanel panel;
        panel.show();
        panel.addDevice();
        auto *add = panel.findChild<AddDeviceDialog *>();
        QVERIFY(add);
        add->setFields({QStringLiteral("lab orin"), QStringLiteral("orin.local"),
                        QStringLiteral("22"), QStringLiteral("nvidia"), QString()});
        add->accept();
        panel.connectCurrent();
        QVERIFY(panel.setCurrentTarget(QStringLiteral("sim:orin-agx")));  // another selected

        const QString message =
            QStringLiteral("the installed helper /usr/lib/powertrain-workbench/ptwb-helper is "
                           "version 1; this workbench needs version 2: run `ptwb device setup` "
                           "to update it");
        const QString script =
            QStringLiteral("import json, sys\n"
                           "rid = json.loads(sys.stdin.readline())['id']\n"
                           "print(json.dumps({'id': rid, 'ok': True, 'result': {"
                           "'agent_version': '1.0.0', 'model': 'NVIDIA Jetson AGX Orin', "
                           "'boot_id': 'b', 'device': 'orin-agx', 'tables': {}, "
                           "'helper': {'state': 'outdated', 'message': %1}}}), flush=True)\n"
                           "sys.stdin.read()\n")
                .arg(QString::fromUtf8(
                         QJsonDocument(QJsonArray {message}).toJson(QJsonDocument::Compact))
                         .mid(1)
                         .chopped(1));
        DeviceClient client(new LocalProcessTransport(QStringLiteral("python3"),
                                                      {QStringLiteral("-c"), script},
                                                      QStringLiteral("stand-in agent")));
        panel.setClient(&client);
        client.connectToDevice();
        DeviceDetailsView *details = panel.details();
        QTRY_COMPARE_WITH_TIMEOUT(details->state(), DeviceDetailsView::State::Disconnected, 30000);
        QVERIFY2(details->stateText().contains(QLatin1String("needs version 2")),
                 qPrintable(details->stateText()));
        QCOMPARE(client.helperProblem(), QStringLiteral("outdated"));
        auto *offer = details->findChild<QPushButton *>(QStringLiteral("setupHelper"));
        QVERIFY(offer);
        QVERIFY(offer->isVisible());
        offer->click();
        auto *setup = panel.findChild<DeviceSetupDialog *>();
        QVERIFY(setup);
        QVERIFY(setup->windowTitle().contains(QLatin1String("lab orin")));
        setup->reject();
        panel.setClient(nullptr);
    }

    void disconnectionShowsTheReason()
    {
        // hello is request 1; the connection drops on request 4 (the third power sample).
        auto client = simulator({QStringLiteral("drop-after:4")});
        QVERIFY(client);
        DevicesPanel panel;
        panel.show();
        panel.setClient(client.get());
        QSignalSpy gone(client.get(), &DeviceClient::disconnected);
        QSignalSpy ready(client.get(), &DeviceClient::ready);
        client->connectToDevice();
        DeviceDetailsView *details = panel.details();
        QTRY_COMPARE_WITH_TIMEOUT(gone.count(), 1, 30000);
        QCOMPARE(ready.count(), 1);
        const QString reason = gone.at(0).at(0).toString();
        QVERIFY(!reason.isEmpty());
        QCOMPARE(details->state(), DeviceDetailsView::State::Disconnected);
        QVERIFY2(details->stateText().contains(reason), qPrintable(details->stateText()));
        QVERIFY(!details->monitor()->isPolling());

        auto *reconnect = details->findChild<QPushButton *>(QStringLiteral("reconnect"));
        QVERIFY(reconnect);
        QVERIFY(reconnect->isVisible());
        reconnect->click();
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, 30000);
        QVERIFY(!reconnect->isVisible());

        // The client going away leaves the panel offline, not dangling.
        client.reset();
        QCOMPARE(details->state(), DeviceDetailsView::State::NoClient);
    }
};

QTEST_MAIN(TestDevicesPanel)
#include "test_devicespanel.moc"
