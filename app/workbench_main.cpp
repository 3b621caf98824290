// powertrain-workbench: the window. Parses its few options and wires the pieces together.
#include "mainwindow.h"
#include "store/store.h"
#include "storesession.h"
#include "util/appidentity.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

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
    parser.addOption(dbOption);
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

    if (parser.isSet(screenshotOption)) {
        // Save once the store has gone quiet (opened, summaries and measurements loaded).
        const QString file = parser.value(screenshotOption);
        auto save = [&window, file] {
            const bool ok = window.grab().save(file);
            if (!ok)
                std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
            QApplication::exit(ok ? 0 : 1);
        };
        QObject::connect(&session, &ptwb::ui::StoreSession::busyChanged, &window,
                         [save](bool busy) {
                             if (!busy)
                                 QTimer::singleShot(300, save);
                         });
        QObject::connect(&session, &ptwb::ui::StoreSession::failed, &window,
                         [] { QApplication::exit(1); });
        QTimer::singleShot(15000, save);
    }
    return app.exec();
}
