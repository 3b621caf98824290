#include "deviceclient.h"
#include "devicelist.h"
#include "devicestatuslabel.h"
#include "devicetablesview.h"
#include "explorepanel.h"
#include "firstrunguide.h"
#include "localprocesstransport.h"
#include "mainwindow.h"
#include "measurementsmodel.h"
#include "measurementsview.h"
#include "simulatorlauncher.h"
#include "storesession.h"
#include "viewexport.h"

#include "core/rawrunfixture.h"
#include "testfiles.h"
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

const QByteArray kThreeRows = "cores,cpu,gpu,mem,observed_time,observed_power\n"
                              "12,2201600,1300500000,3199000000,100,40\n"
                              "8,1651200,522750000,3199000000,180,25.5\n"
                              "4,1036800,318750000,2133000000,95,15\n";

}  // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void showsImportedMeasurements()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        {
            auto store = Store::open(db);
            QVERIFY(store.ok());
            const auto outcome =
                Importer(**store).run({writeTestFile(dir, QStringLiteral("a.csv"), kThreeRows),
                                       QStringLiteral("orin-agx"),
                                       {},
                                       QStringLiteral("resnet18")});
            QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        }
        StoreSession session;
        MainWindow window(&session);
        window.show();
        session.open(db);
        MeasurementsModel *model = window.measurements()->model();
        QTRY_COMPARE(model->rowCount(), 3);
        QCOMPARE(window.measurements()->currentSelection(),
                 qMakePair(QStringLiteral("orin-agx"), QStringLiteral("resnet18")));
        QCOMPARE(model->index(0, MeasurementsModel::Mode).data().toString(),
                 QStringLiteral("12/2201600/1300500000/3199000000"));
        QCOMPARE(model->index(1, MeasurementsModel::PowerW).data().toString(),
                 QStringLiteral("25.50"));
        QCOMPARE(model->index(1, MeasurementsModel::EnergyJ).data().toString(),
                 QStringLiteral("4.59"));  // 25.5 W x 0.18 s

        // Sorting compares numbers, not text: as text "95.0" would come first in a descending
        // sort on time; as numbers 180 ms does.
        QTableView *table = window.measurements()->table();
        table->sortByColumn(MeasurementsModel::TimeMs, Qt::DescendingOrder);
        QCOMPARE(table->model()->index(0, MeasurementsModel::TimeMs).data().toString(),
                 QStringLiteral("180.0"));
        QCOMPARE(table->model()->index(2, MeasurementsModel::TimeMs).data().toString(),
                 QStringLiteral("95.0"));
        QVERIFY(table->isColumnHidden(MeasurementsModel::Batch));  // training rows only
    }

    void showsInferenceBatchSizes()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.sqlite"));
        {
            auto store = Store::open(db);
            QVERIFY(store.ok());
            const auto outcome = Importer(**store).run(
                {writeTestFile(dir, QStringLiteral("i.csv"),
                               "cores,cpu,gpu,mem,observed_time,bs,observed_power\n"
                               "12,2201600,1300500000,3199000000,7.5,1.0,30.5\n"
                               "12,2201600,1300500000,3199000000,95.0,64.0,41.0\n"),
                 QStringLiteral("orin-agx"),
                 {},
                 QStringLiteral("resnet18_infer")});
            QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        }
        StoreSession session;
        MainWindow window(&session);
        window.show();
        session.open(db);
        MeasurementsModel *model = window.measurements()->model();
        QTRY_COMPARE(model->rowCount(), 2);
        QCOMPARE(model->index(1, MeasurementsModel::Batch).data().toInt(), 64);
        QCOMPARE(model->headerData(MeasurementsModel::Batch, Qt::Horizontal).toString(),
                 QStringLiteral("Batch"));
        QVERIFY(!window.measurements()->table()->isColumnHidden(MeasurementsModel::Batch));
    }

    void importThroughSessionUpdatesTheView()
    {
        QTemporaryDir dir;
        StoreSession session;
        MainWindow window(&session);
        window.show();
        session.open(dir.filePath(QStringLiteral("w.sqlite")));
        QSignalSpy opened(&session, &StoreSession::opened);
        QVERIFY(opened.wait());
        QSignalSpy finished(&session, &StoreSession::importFinished);
        session.import({writeTestFile(dir, QStringLiteral("b.csv"), kThreeRows),
                        QStringLiteral("orin-agx"),
                        {},
                        QStringLiteral("mobilenet")});
        QVERIFY(finished.wait(10000));
        const QString described = finished.first().first().value<ImportOutcome>().describe();
        QVERIFY2(described.startsWith(QStringLiteral("imported 3 rows")), qPrintable(described));
        QTRY_COMPARE(window.measurements()->model()->rowCount(), 3);

        // A bad file: the error is shown without blocking, and nothing changes.
        QSignalSpy failed(&session, &StoreSession::failed);
        session.import({writeTestFile(dir, QStringLiteral("bad.csv"),
                                      "cores,cpu,gpu,mem,observed_time,observed_power\n"
                                      "12,2201600,13e,3199000000,5,6\n"),
                        QStringLiteral("orin-agx"),
                        {},
                        QStringLiteral("mobilenet")});
        QVERIFY(failed.wait(10000));
        QCOMPARE(failed.first().first().toString(),
                 QStringLiteral("bad.csv:2: column 'gpu': '13e' is not a frequency in Hz"));
        QMessageBox *box = window.findChild<QMessageBox *>(QStringLiteral("errorBox"));
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QCOMPARE(box->text(), failed.first().first().toString());
        QCOMPARE(window.measurements()->model()->rowCount(), 3);
    }

    // Raw run folders through File > Import: the good folder lands in the table, the broken one
    // is listed in a box that does not block the window.
    void importOfRawRunFoldersShowsWhatWasLeftOut()
    {
        QTemporaryDir dir;
        StoreSession session;
        MainWindow window(&session);
        window.show();
        session.open(dir.filePath(QStringLiteral("w.sqlite")));
        QSignalSpy opened(&session, &StoreSession::opened);
        QVERIFY(opened.wait());
        const QString runs = dir.filePath(QStringLiteral("resnet18"));
        test::RawRunSpec good;
        good.mode = {12, 2201600, 1300500000, 3199000000};
        good.timeMs = 300;
        test::writeRawRun(runs, good);
        test::RawRunSpec broken;
        broken.mode = {4, 1190400, 624750000, 3199000000};
        broken.loggedClocks = PowerMode {4, 1190400, 624750000, 2133000000};
        test::writeRawRun(runs, broken);

        QSignalSpy finished(&session, &StoreSession::importFinished);
        QSignalSpy failed(&session, &StoreSession::failed);
        session.import({runs, QStringLiteral("orin-agx"), {}, QStringLiteral("resnet18")});
        QVERIFY2(finished.wait(10000), qPrintable(failed.value(0).value(0).toString()));
        QTRY_COMPARE(window.measurements()->model()->rowCount(), 1);
        auto *box = window.findChild<QMessageBox *>(QStringLiteral("importOutcomeBox"));
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY2(box->text().startsWith(QStringLiteral("imported 1 of 2 run folders")),
                 qPrintable(box->text()));
        QVERIFY(box->detailedText().contains(
            QStringLiteral("pm_4_1190400_624750000_3199000000/log_file_pm_14: the log says the "
                           "memory runs at (Hz) 2133000000, the folder name 3199000000")));
        box->close();
    }

    void deviceTablesFollowTheDevice()
    {
        StoreSession session;
        MainWindow window(&session);
        DeviceTablesView *view = window.deviceTables();
        auto *frequencies = view->findChild<QTableWidget *>(QStringLiteral("frequencies"));
        auto *presets = view->findChild<QTableWidget *>(QStringLiteral("presets"));
        QVERIFY(frequencies && presets);
        view->setCurrentDevice(QStringLiteral("orin-agx"));
        QCOMPARE(frequencies->rowCount(), 29);
        QCOMPARE(frequencies->item(28, 1)->text(), QStringLiteral("2201.6"));
        QCOMPARE(frequencies->item(0, 2)->text(), QStringLiteral("114.75"));
        QCOMPARE(presets->rowCount(), 4);
        QVERIFY(
            presets->item(1, 5)->text().contains(QStringLiteral("4/1113600/318750000/2133000000")));
        QSignalSpy changed(view, &DeviceTablesView::currentDeviceChanged);
        view->setCurrentDevice(QStringLiteral("orin-nano"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(frequencies->rowCount(), 20);
        QCOMPARE(frequencies->item(5, 0)->text(), QStringLiteral("6"));
        QVERIFY(!frequencies->item(6, 0));
    }

    void statusBarSaysTheDeviceIsSimulated()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QTemporaryDir state;
        StoreSession session;
        MainWindow window(&session);
        QCOMPARE(window.deviceStatus()->text(),
                 QStringLiteral("No device connected · offline tables"));

        SimulatorOptions options;
        options.stateDirectory = state.path();
        options.faults = {QStringLiteral("drop-after:2")};  // hello, then the next request drops
        Expected<LocalProcessTransport *> transport = SimulatorLauncher::transport(options);
        QVERIFY2(transport, qPrintable(transport.error()));
        DeviceClient client(*transport);
        window.setDeviceClient(&client);
        client.connectToDevice();
        QVERIFY(window.deviceStatus()->text().startsWith(QLatin1String("Connecting to simulated")));
        QTRY_VERIFY_WITH_TIMEOUT(client.isReady(), 30000);
        const QString text = window.deviceStatus()->text();
        QVERIFY2(text.startsWith(QLatin1String("Simulated device: ")) &&
                     text.contains(QLatin1String("AGX Orin")) &&
                     text.contains(QLatin1String("12c/2.20C/1.30G/3.20M")),
                 qPrintable(text));
        QVERIFY(window.deviceStatus()->toolTip().contains(QLatin1String("simulated Jetson")));

        client.getMode();  // the injected drop
        QTRY_VERIFY_WITH_TIMEOUT(
            window.deviceStatus()->text().startsWith(QLatin1String("Device disconnected")), 30000);

        // Device > Reconnect (Ctrl+R) starts the agent again.
        auto *reconnect = window.findChild<QAction *>(QStringLiteral("reconnectAction"));
        QVERIFY(reconnect && reconnect->isEnabled());
        QCOMPARE(reconnect->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_R));
        reconnect->trigger();
        QVERIFY(window.deviceStatus()->text().startsWith(QLatin1String("Connecting to simulated")));
        QTRY_VERIFY_WITH_TIMEOUT(client.isReady(), 30000);
        QVERIFY(window.deviceStatus()->text().startsWith(QLatin1String("Simulated device: ")));
    }

    // What the README's run command does on a fresh machine: an empty store on the simulated
    // Jetson gets the simulated starter data, Explore shows the reference workload's measured
    // modes at once, and, once the Models view has trained and transferred, the new workload's
    // predicted cloud.
    void firstRunOnTheSimulatedJetsonShowsPredictions()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QTemporaryDir dir;
        StoreSession session;
        MainWindow window(&session);
        window.setFirstRunEnabled(true);
        QSignalSpy finished(window.firstRun(), &FirstRunGuide::finished);
        session.open(dir.filePath(QStringLiteral("first.sqlite")));
        DeviceEntry simulated;
        simulated.name = QStringLiteral("Simulated Jetson AGX Orin");
        simulated.target = QStringLiteral("sim:orin-agx");
        QVERIFY(window.connectDevice(simulated));
        // The measured reference modes come first, within seconds.
        QTRY_VERIFY_WITH_TIMEOUT(
            window.explore()->space() && window.explore()->space()->observedCount() == 4368, 30000);
        QVERIFY(finished.wait(240000));
        QVERIFY(finished.at(0).at(0).toBool());
        QTRY_VERIFY_WITH_TIMEOUT(
            window.explore()->space() && window.explore()->space()->hasPredictions() &&
                window.explore()->currentWorkload() == QLatin1String("mobilenet_v3"),
            60000);
        const TradeoffSpace *space = window.explore()->space();
        QCOMPARE(space->size(), 18096);
        QCOMPARE(space->observedCount(), 50);
        QVERIFY(space->device().startsWith(QLatin1String("simulated-")));
        // A second window on the same store adds nothing: the store is not empty any more.
        StoreSession again;
        MainWindow second(&again);
        second.setFirstRunEnabled(true);
        again.open(dir.filePath(QStringLiteral("first.sqlite")));
        QVERIFY(second.connectDevice(simulated));
        QTRY_VERIFY_WITH_TIMEOUT(second.explore()->space() != nullptr, 30000);
        QVERIFY(!second.firstRun()->isRunning());
    }

    void presentationModeEnlargesFontsAndPersists()
    {
        QSettings().remove(QStringLiteral("window/presentation"));
        const qreal normal = QApplication::font().pointSizeF();
        {
            StoreSession session;
            MainWindow window(&session);
            window.show();
            QVERIFY(!window.isPresenting());
            auto *present = window.findChild<QAction *>(QStringLiteral("presentationAction"));
            QVERIFY(present && present->isCheckable());
            QCOMPARE(present->shortcut(), QKeySequence(Qt::Key_F11));
            present->trigger();
            QVERIFY(window.isPresenting());
            QVERIFY(QApplication::font().pointSizeF() > normal * 1.3);
            window.close();  // saves the settings
        }
        {
            StoreSession session;
            MainWindow window(&session);  // comes back in presentation mode
            window.show();
            QVERIFY(window.isPresenting());
            window.setPresentationMode(false);
            QCOMPARE(QApplication::font().pointSizeF(), normal);
            window.close();
        }
    }

    void tableExportWritesWhatIsShown()
    {
        QStandardItemModel model(2, 2);
        model.setHorizontalHeaderLabels({QStringLiteral("mode"), QStringLiteral("note")});
        model.setItem(0, 0, new QStandardItem(QStringLiteral("12c/2.20C/1.30G/3.20M")));
        model.setItem(0, 1, new QStandardItem(QStringLiteral("fast, \"MAXN\"")));
        model.setItem(1, 0, new QStandardItem(QStringLiteral("4c/1.11C/0.32G/2.13M")));
        model.setItem(1, 1, new QStandardItem(QStringLiteral("\u2212 3 %")));
        QCOMPARE(ViewExport::tableCsv(model),
                 QByteArray("mode,note\n12c/2.20C/1.30G/3.20M,\"fast, \"\"MAXN\"\"\"\n"
                            "4c/1.11C/0.32G/2.13M,- 3 %\n"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
