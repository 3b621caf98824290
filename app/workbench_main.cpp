// powertrain-workbench: the window. Parses its few options and wires the pieces together.
#include "deviceclient.h"
#include "devicetarget.h"
#include "dialogsshprompts.h"
#include "localprocesstransport.h"
#include "mainwindow.h"
#include "simulatorlauncher.h"
#include "sshlaunch.h"
#include "sshtransport.h"
#include "store/store.h"
#include "storesession.h"
#include "util/appidentity.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <memory>

using ptwb::Expected;
using ptwb::LocalProcessTransport;

namespace {

// sim:KIND starts the simulated Jetson; ssh://USER@HOST[:PORT] uploads and runs the agent,
// asking the person through dialogs (host key, passphrase, password).
Expected<ptwb::Transport *> deviceTransport(const QString &text, bool sudo, QWidget *window)
{
    using Result = Expected<ptwb::Transport *>;
    Expected<ptwb::DeviceTarget> target = ptwb::DeviceTarget::parse(text);
    if (!target)
        return Result::failure(target.error());
    if (target->kind == ptwb::DeviceTarget::Kind::Ssh) {
        Expected<ptwb::SshLaunch> agent = ptwb::SshLaunches::agent();
        if (!agent)
            return Result::failure(agent.error());
        ptwb::SshOptions options = ptwb::SshLaunches::optionsFor(*target);
        options.launch = *agent;
        options.useSudo = sudo;
        options.prompts = std::make_shared<ptwb::ui::DialogSshPrompts>(window);
        return new ptwb::SshTransport(options);
    }
    ptwb::SimulatorOptions options;
    options.deviceKind = target->deviceKind;
    Expected<LocalProcessTransport *> local = ptwb::SimulatorLauncher::transport(options);
    if (!local)
        return Result::failure(local.error());
    return static_cast<ptwb::Transport *>(*local);
}

}  // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    ptwb::setApplicationIdentity();
    QApplication::setApplicationDisplayName(QStringLiteral("PowerTrain Workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("PowerTrain Workbench"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption dbOption(QStringLiteral("db"),
                                      QStringLiteral("Workbench database (default: the last one "
                                                     "used, else %1).")
                                          .arg(ptwb::Store::defaultPath()),
                                      QStringLiteral("DB"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Render the window to FILE.png once the data has loaded, then exit."),
        QStringLiteral("FILE.png"));
    const QCommandLineOption viewOption(QStringLiteral("view"),
                                        QStringLiteral("Tab to show: measurements or devices."),
                                        QStringLiteral("VIEW"));
    const QCommandLineOption targetOption(
        QStringLiteral("target"),
        QStringLiteral("Device to connect to: sim:orin-agx, sim:xavier-agx, sim:orin-nano (a "
                       "simulated Jetson), ssh://USER@HOST[:PORT], or offline (default: the "
                       "last one used, else sim:orin-agx)."),
        QStringLiteral("TARGET"));
    const QCommandLineOption sudoOption(
        QStringLiteral("sudo"),
        QStringLiteral("SSH device: run the agent through sudo -n (it needs root for clocks)."));
    parser.addOption(dbOption);
    parser.addOption(targetOption);
    parser.addOption(sudoOption);
    parser.addOption(screenshotOption);
    parser.addOption(viewOption);
    parser.process(app);

    QString dbPath = parser.value(dbOption);
    if (dbPath.isEmpty())
        dbPath =
            QSettings().value(QStringLiteral("store/path"), ptwb::Store::defaultPath()).toString();

    ptwb::ui::StoreSession session;
    ptwb::ui::MainWindow window(&session);
    if (parser.isSet(viewOption)) {
        const QString view = parser.value(viewOption);
        if (view != QLatin1String("measurements") && view != QLatin1String("devices")) {
            std::fprintf(stderr, "--view: expected measurements or devices, not '%s'\n",
                         qPrintable(view));
            return 2;
        }
        window.tabs()->setCurrentIndex(view == QLatin1String("devices") ? 1 : 0);
    }
    window.resize(parser.isSet(screenshotOption) ? QSize(1200, 760) : window.size());
    window.show();
    session.open(dbPath);

    const QString targetText = parser.isSet(targetOption)
        ? parser.value(targetOption)
        : QSettings()
              .value(QStringLiteral("device/target"), QStringLiteral("sim:orin-agx"))
              .toString();
    std::unique_ptr<ptwb::DeviceClient> device;
    if (targetText != QLatin1String("offline")) {
        Expected<ptwb::Transport *> transport =
            deviceTransport(targetText, parser.isSet(sudoOption), &window);
        if (!transport) {
            std::fprintf(stderr, "--target: %s\n", qPrintable(transport.error()));
            return 2;
        }
        device = std::make_unique<ptwb::DeviceClient>(*transport);
        window.setDeviceClient(device.get());
        device->connectToDevice();
    }
    if (parser.isSet(targetOption))
        QSettings().setValue(QStringLiteral("device/target"), targetText);

    if (parser.isSet(screenshotOption)) {
        // Save once the store has gone quiet (opened, summaries and measurements loaded).
        const QString file = parser.value(screenshotOption);
        auto save = [&window, file] {
            const bool ok = window.grab().save(file);
            if (!ok)
                std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
            QApplication::exit(ok ? 0 : 1);
        };
        // Once the store is quiet and the device has answered (or failed), whichever is last.
        auto storeQuiet = std::make_shared<bool>(false);
        auto deviceSettled = std::make_shared<bool>(!device);
        auto maybeSave = [save, storeQuiet, deviceSettled] {
            if (*storeQuiet && *deviceSettled)
                QTimer::singleShot(300, save);
        };
        QObject::connect(&session, &ptwb::ui::StoreSession::busyChanged, &window,
                         [maybeSave, storeQuiet](bool busy) {
                             *storeQuiet = !busy;
                             maybeSave();
                         });
        if (device) {
            QObject::connect(device.get(), &ptwb::DeviceClient::ready, &window,
                             [maybeSave, deviceSettled] {
                                 *deviceSettled = true;
                                 maybeSave();
                             });
            QObject::connect(device.get(), &ptwb::DeviceClient::disconnected, &window,
                             [maybeSave, deviceSettled] {
                                 *deviceSettled = true;
                                 maybeSave();
                             });
        }
        QObject::connect(&session, &ptwb::ui::StoreSession::failed, &window,
                         [] { QApplication::exit(1); });
        QTimer::singleShot(15000, save);
    }
    return app.exec();
}
