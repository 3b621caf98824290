// powertrain-workbench: the window. Parses its few options and wires the pieces together.
#include "devicelist.h"
#include "devicetarget.h"
#include "explorepanel.h"
#include "mainwindow.h"
#include "modes/devicespec.h"
#include "screenshotdirector.h"
#include "store/store.h"
#include "storesession.h"
#include "util/appidentity.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QSettings>

#include <cstdio>

namespace {

// The Devices view's entry for a target text, or a new one named after it.
ptwb::ui::DeviceEntry entryFor(const QString &target)
{
    for (const ptwb::ui::DeviceEntry &entry : ptwb::ui::DeviceList::load()) {
        if (entry.target == target)
            return entry;
    }
    ptwb::ui::DeviceEntry entry;
    entry.name = target;
    entry.target = target;
    return entry;
}

// For benchmarks: PTWB_REPORT_READY prints "ready MS" once Explore shows data (and quits when
// it is "exit").
void reportWhenReady(ptwb::ui::MainWindow &window, const QElapsedTimer &clock)
{
    const QByteArray mode = qgetenv("PTWB_REPORT_READY");
    if (mode.isEmpty())
        return;
    QObject::connect(window.explore(), &ptwb::ui::ExplorePanel::loaded, &window,
                     [&clock, mode](const QString &, int modes) {
                         if (modes <= 0)
                             return;
                         std::printf("ready %lld\n", static_cast<long long>(clock.elapsed()));
                         std::fflush(stdout);
                         if (mode == "exit")
                             QApplication::exit(0);
                     });
}

}  // namespace

int main(int argc, char *argv[])
{
    QElapsedTimer clock;
    clock.start();
    QApplication app(argc, argv);
    ptwb::setApplicationIdentity();
    // Ties the window to the installed desktop entry (its icon and name in docks and taskbars).
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.powertrain_workbench.Workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("PowerTrain Workbench: profile, predict, choose and apply the power modes "
                       "of NVIDIA Jetson devices for DNN training."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption dbOption(QStringLiteral("db"),
                                      QStringLiteral("Workbench database (default: the last one "
                                                     "used, else %1).")
                                          .arg(ptwb::Store::defaultPath()),
                                      QStringLiteral("DB"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Render the view with the simulated device's data to FILE.png, then "
                       "exit."),
        QStringLiteral("FILE.png"));
    const QCommandLineOption viewOption(
        QStringLiteral("view"),
        QStringLiteral(
            "View to show: %1; with --screenshot also add-device (the Add device "
            "dialog), apply (an apply's countdown), explore-concurrent (Explore's "
            "concurrent mode, from a store with an inference workload), explore-batch "
            "(Explore's batch size mode, from a store with a workload at several batch sizes "
            "and a convergence relation), verify-concurrent "
            "(its Verify on device dialog, the same store) and compare-concurrent (Compare's "
            "concurrent training + inference "
            "evaluation).")
            .arg(ptwb::ui::MainWindow::viewNames().join(QStringLiteral(", "))),
        QStringLiteral("VIEW"));
    const QCommandLineOption targetOption(
        QStringLiteral("target"),
        QStringLiteral("Device to connect to: sim:KIND (a simulated Jetson; KIND is one of "
                       "%1), ssh://USER@HOST[:PORT], or offline (default: the last one used, "
                       "else sim:orin-agx).")
            .arg(ptwb::DeviceSpec::builtinIds().join(QStringLiteral(", "))),
        QStringLiteral("TARGET"));
    const QCommandLineOption noStarterOption(
        QStringLiteral("no-starter-data"),
        QStringLiteral("Do not fill an empty store with the simulated starter data."));
    for (const QCommandLineOption &option :
         {dbOption, targetOption, screenshotOption, viewOption, noStarterOption})
        parser.addOption(option);
    parser.process(app);

    const QStringList views = parser.isSet(screenshotOption)
        ? ptwb::ui::ScreenshotDirector::viewNames()
        : ptwb::ui::MainWindow::viewNames();
    const QString view = parser.value(viewOption);
    if (parser.isSet(viewOption) && !views.contains(view)) {
        std::fprintf(stderr, "--view: expected one of %s, not '%s'%s\n",
                     qPrintable(views.join(QStringLiteral(", "))), qPrintable(view),
                     ptwb::ui::ScreenshotDirector::isScreenshotOnly(view)
                         ? " (that one only with --screenshot)"
                         : "");
        return 2;
    }
    const QString targetText = parser.isSet(targetOption)
        ? parser.value(targetOption)
        : QSettings()
              .value(QStringLiteral("device/target"), ptwb::ui::DeviceList::currentTarget())
              .toString();
    if (targetText != QLatin1String("offline")) {
        if (const auto parsed = ptwb::DeviceTarget::parse(targetText); !parsed) {
            std::fprintf(stderr, "--target: %s\n", qPrintable(parsed.error()));
            return 2;
        }
    }
    QString dbPath = parser.value(dbOption);
    if (dbPath.isEmpty())
        dbPath =
            QSettings().value(QStringLiteral("store/path"), ptwb::Store::defaultPath()).toString();

    ptwb::ui::StoreSession session;
    ptwb::ui::MainWindow window(&session);
    window.setFirstRunEnabled(!parser.isSet(noStarterOption));
    if (parser.isSet(viewOption))
        window.showView(ptwb::ui::ScreenshotDirector::windowView(view));
    if (parser.isSet(screenshotOption))
        window.resize(1440, 900);
    reportWhenReady(window, clock);
    window.show();
    session.open(dbPath);
    if (targetText != QLatin1String("offline")) {
        const ptwb::Status connected = window.connectDevice(entryFor(targetText));
        if (!connected) {
            std::fprintf(stderr, "--target: %s\n", qPrintable(connected.error()));
            return 2;
        }
    }
    // The next start uses the same device (the Devices view also remembers the one chosen
    // there); "offline" is remembered apart, as it is no device.
    if (parser.isSet(targetOption)) {
        if (targetText == QLatin1String("offline")) {
            QSettings().setValue(QStringLiteral("device/target"), targetText);
        } else {
            QSettings().remove(QStringLiteral("device/target"));
            ptwb::ui::DeviceList::setCurrentTarget(targetText);
        }
    }

    ptwb::ui::ScreenshotDirector director(&window, parser.isSet(viewOption) ? view : QString(),
                                          parser.value(screenshotOption));
    if (parser.isSet(screenshotOption))
        director.start();
    return app.exec();
}
