// The user guide's screenshot-only views of powertrain-workbench (--view add-device and
// --view apply): the real executable on the simulated Jetson, with a throwaway store, settings
// and simulated device.
#include "app/clirunner.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

// Every run gets its own home: settings, the store and the simulated device's state.
CliResult runWorkbench(const QTemporaryDir &home, const QStringList &arguments,
                       int timeoutMs = 180000)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"})
        environment.insert(QString::fromLatin1(name), home.filePath(QString::fromLatin1(name)));
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    return runProgram(QStringLiteral(PTWB_WORKBENCH), arguments, timeoutMs, environment);
}

// A file of the simulated AGX Orin's fake kernel tree, trimmed.
QString simulatedFile(const QTemporaryDir &home, const QString &path)
{
    QFile file(home.filePath(QStringLiteral(
                   "XDG_DATA_HOME/powertrain-workbench/powertrain-workbench/simulated-orin-agx/"
                   "root/")) +
               path);
    return file.open(QIODevice::ReadOnly) ? QString::fromLatin1(file.readAll().trimmed())
                                          : QStringLiteral("(missing: %1)").arg(file.fileName());
}

}  // namespace

class TestScreenshotDirector : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void savesTheView_data()
    {
        QTest::addColumn<QString>("view");
        QTest::newRow("add-device") << QStringLiteral("add-device");
        QTest::newRow("apply") << QStringLiteral("apply");
        // Test on device runs the workload in the current mode: the mode stays MAXN.
        QTest::newRow("workload-test") << QStringLiteral("workload-test");
    }

    // The apply is real (ModeApplier against the simulated Jetson) and is cancelled before the
    // program exits: the device is back in its first mode, MAXN (12 cores, CPU at 2.2 GHz).
    void savesTheView()
    {
        QFETCH(QString, view);
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QString picture = home.filePath(view + QStringLiteral(".png"));
        const CliResult run =
            runWorkbench(home,
                         {QStringLiteral("--db"), home.filePath(QStringLiteral("shot.sqlite")),
                          QStringLiteral("--screenshot"), picture, QStringLiteral("--view"), view});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("(%1 view").arg(view)), qPrintable(run.err));
        QCOMPARE(QImage(picture).size(), QSize(1440, 900));
        QCOMPARE(simulatedFile(home, QStringLiteral("sys/devices/system/cpu/cpu11/online")),
                 QStringLiteral("1"));
        QCOMPARE(simulatedFile(
                     home, QStringLiteral("sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq")),
                 QStringLiteral("2201600"));
    }

    void screenshotOnlyViewsNeedScreenshot()
    {
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const CliResult run =
            runWorkbench(home,
                         {QStringLiteral("--db"), home.filePath(QStringLiteral("shot.sqlite")),
                          QStringLiteral("--view"), QStringLiteral("apply")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("only with --screenshot")), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestScreenshotDirector)
#include "test_screenshotdirector.moc"
