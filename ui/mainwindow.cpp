#include "mainwindow.h"

#include "comparepanel.h"
#include "concurrentexplorer.h"
#include "deviceclient.h"
#include "deviceconnection.h"
#include "devicedetails.h"
#include "devicespanel.h"
#include "devicestatuslabel.h"
#include "devicetablesview.h"
#include "explorepanel.h"
#include "firstrunguide.h"
#include "importdialog.h"
#include "measurementsview.h"
#include "modelspanel.h"
#include "plaintext.h"
#include "storesession.h"
#include "sweeppanel.h"
#include "tradeoffchart.h"
#include "viewexport.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>

namespace ptwb::ui {

namespace {

constexpr double kPresentationScale = 1.45;

}  // namespace

QStringList MainWindow::viewNames()
{
    return {QStringLiteral("explore"), QStringLiteral("sweep"),   QStringLiteral("models"),
            QStringLiteral("compare"), QStringLiteral("devices"), QStringLiteral("measurements"),
            QStringLiteral("tables")};
}

MainWindow::MainWindow(StoreSession *session, QWidget *parent)
    : QMainWindow(parent)
    , m_session(session)
    , m_tabs(new QTabWidget(this))
    , m_explore(new ExplorePanel(this))
    , m_sweep(new SweepPanel(this))
    , m_models(new ModelsPanel(this))
    , m_compare(new ComparePanel(this))
    , m_devices(new DevicesPanel(this))
    , m_measurements(new MeasurementsView(this))
    , m_deviceTables(new DeviceTablesView(this))
    , m_deviceStatus(new DeviceStatusLabel(this))
    , m_connection(new DeviceConnection(this))
    , m_firstRun(new FirstRunGuide(m_explore, m_models, this))
    , m_dbStatus(plainLabel(this))
    , m_progress(new QProgressBar(this))
    , m_normalFont(QApplication::font())
{
    setWindowTitle(tr("PowerTrain Workbench"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/powertrain-workbench.svg")));
    m_tabs->setDocumentMode(true);
    addView(m_explore, tr("&Explore"), View::Explore);
    addView(m_sweep, tr("&Sweep"), View::Sweep);
    addView(m_models, tr("M&odels"), View::Models);
    addView(m_compare, tr("&Compare"), View::Compare);
    addView(m_devices, tr("&Devices"), View::Devices);
    addView(m_measurements, tr("&Measurements"), View::Measurements);
    addView(m_deviceTables, tr("Device &tables"), View::DeviceTables);
    setCentralWidget(m_tabs);

    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    statusBar()->addWidget(m_deviceStatus);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_dbStatus);

    createMenus();
    wireViews();
    restoreSettings();
}

MainWindow::~MainWindow()
{
    // The application's font is shared: leave it as this window found it.
    if (m_presenting)
        QApplication::setFont(m_normalFont);
}

void MainWindow::addView(QWidget *view, const QString &title, View which)
{
    m_tabs->insertTab(int(which), view, title);
}

void MainWindow::showView(View view)
{
    m_tabs->setCurrentIndex(int(view));
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open database…"), this, &MainWindow::chooseDatabase);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open or create a workbench database (SQLite)"));
    file->addSeparator();
    m_importAction = file->addAction(tr("&Import CSV…"), this, &MainWindow::chooseImportFile);
    m_importAction->setShortcut(QKeySequence(tr("Ctrl+I")));
    m_importAction->setToolTip(tr("Import measurements in the public PowerTrain CSV layout"));
    m_importFoldersAction =
        file->addAction(tr("Import &raw run folders…"), this, &MainWindow::chooseImportFolder);
    m_importFoldersAction->setObjectName(QStringLiteral("importFoldersAction"));
    m_importFoldersAction->setShortcut(QKeySequence(tr("Ctrl+Shift+I")));
    m_importFoldersAction->setToolTip(tr("Import the per-mode log folders (pm_<cores>_<cpu>_<gpu>_"
                                         "<mem>) the PowerTrain study's profiling scripts write"));
    m_exportAction =
        file->addAction(tr("&Export measurements…"), this, &MainWindow::chooseExportFile);
    m_exportAction->setShortcut(QKeySequence(tr("Ctrl+E")));
    m_exportAction->setToolTip(tr("Export the workload shown in the PowerTrain CSV layout"));
    m_exportAction->setEnabled(false);
    QAction *chart =
        file->addAction(tr("Export &chart as PNG or SVG…"), this, &MainWindow::exportChart);
    chart->setObjectName(QStringLiteral("exportChartAction"));
    chart->setShortcut(QKeySequence(tr("Ctrl+Shift+S")));
    chart->setToolTip(tr("Save the chart of the view on screen (Explore's chart, Compare's "
                         "charts, or the whole view elsewhere)"));
    QAction *table = file->addAction(tr("Export &table as CSV…"), this, &MainWindow::exportTable);
    table->setObjectName(QStringLiteral("exportTableAction"));
    table->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
    table->setToolTip(tr("Save the table of the view on screen as CSV, as it is displayed"));
    m_cancelAction = file->addAction(tr("&Cancel import"), m_session, &StoreSession::cancelImport);
    m_cancelAction->setEnabled(false);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction *go = view->addAction(m_tabs->tabText(i).remove(QLatin1Char('&')), this,
                                      [this, i] { m_tabs->setCurrentIndex(i); });
        go->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
    view->addSeparator();
    QAction *reset =
        view->addAction(tr("&Reset zoom"), m_explore->chart(), &TradeoffChart::resetZoom);
    reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_presentAction =
        view->addAction(tr("&Presentation mode"), this, &MainWindow::setPresentationMode);
    m_presentAction->setObjectName(QStringLiteral("presentationAction"));
    m_presentAction->setCheckable(true);
    m_presentAction->setShortcut(QKeySequence(Qt::Key_F11));
    m_presentAction->setToolTip(tr("Large fonts for a lab demo or a projector (F11)"));

    QMenu *device = menuBar()->addMenu(tr("&Device"));
    device->addAction(m_devices->addDeviceAction());
    device->addAction(m_devices->connectDeviceAction());
    m_reconnectAction = device->addAction(tr("&Reconnect"), this, [this] {
        if (m_deviceClient)
            m_deviceClient->connectToDevice();
    });
    m_reconnectAction->setObjectName(QStringLiteral("reconnectAction"));
    m_reconnectAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_reconnectAction->setToolTip(tr("Start the device's agent again and ask who it is"));
    m_reconnectAction->setEnabled(false);
    device->addSeparator();
    QAction *workloads = device->addAction(tr("&Workloads…"), m_sweep, &SweepPanel::openWorkloads);
    workloads->setObjectName(QStringLiteral("workloadsAction"));
    workloads->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    workloads->setToolTip(tr("Your own training scripts as workloads: add, edit, test on the "
                             "device, then sweep them (Ctrl+Shift+W)"));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About PowerTrain Workbench"), this, &MainWindow::showAbout);

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(m_importAction);
    toolbar->addAction(chart);
    toolbar->addAction(table);
    toolbar->addAction(m_presentAction);
}

void MainWindow::wireViews()
{
    connect(m_session, &StoreSession::opened, this, [this](const QString &path) {
        m_dbStatus->setText(QFileInfo(path).fileName());
        m_dbStatus->setToolTip(path);
        m_explore->setDatabasePath(path);
        m_sweep->setDatabasePath(path);
        m_models->setDatabasePath(path);
        m_compare->setDatabasePath(path);
    });
    connect(m_session, &StoreSession::summariesLoaded, m_measurements,
            &MeasurementsView::setSummaries);
    connect(m_session, &StoreSession::summariesLoaded, this,
            [this](const QVector<WorkloadSummary> &summaries) {
                m_exportAction->setEnabled(!summaries.isEmpty());
                m_storeEmpty = summaries.isEmpty() ? 1 : 0;
                maybeStartFirstRun();
            });
    connect(m_measurements, &MeasurementsView::selectionChanged, m_session,
            &StoreSession::loadMeasurements);
    connect(m_session, &StoreSession::measurementsLoaded, m_measurements,
            &MeasurementsView::setMeasurements);
    connect(m_session, &StoreSession::importProgress, this, [this](qint64 done, qint64 total) {
        m_progress->setRange(0, int(total));
        m_progress->setValue(int(done));
    });
    connect(m_session, &StoreSession::importFinished, this, &MainWindow::showImportOutcome);
    connect(m_session, &StoreSession::exportFinished, this,
            [this](const QString &message) { statusBar()->showMessage(message, 15000); });
    connect(m_session, &StoreSession::failed, this, &MainWindow::showError);
    connect(m_session, &StoreSession::busyChanged, this, &MainWindow::setBusy);

    // New data anywhere shows up everywhere.
    connect(m_models, &ModelsPanel::modelSaved, m_explore, &ExplorePanel::reload);
    connect(m_sweep, &SweepPanel::sweepFinished, this, [this] {
        m_explore->reload();
        m_models->reload();
        m_session->reloadSummaries();
    });
    connect(m_explore, &ExplorePanel::failed, this,
            [this](const QString &message) { statusBar()->showMessage(message, 15000); });
    connect(m_explore, &ExplorePanel::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message, 30000); });
    connect(m_firstRun, &FirstRunGuide::message, this,
            [this](const QString &message) { statusBar()->showMessage(message, 60000); });
    connect(m_firstRun, &FirstRunGuide::finished, this, [this] { m_session->reloadSummaries(); });

    // The device: the Devices view chooses, the window connects, every view follows.
    connect(m_devices, &DevicesPanel::deviceChosen, this, [this](const DeviceEntry &entry) {
        if (const Status connected = connectDevice(entry); !connected)
            showError(connected.error());
    });
    // The views take the new client before the old one is deleted.
    connect(m_connection, &DeviceConnection::clientChanged, this, [this](DeviceClient *client) {
        setDeviceClient(client);
        m_devices->setClient(client);
        m_sweep->setDevice(m_connection->sweepEndpoint());
        m_explore->setApplyDevice(m_connection->applyEndpoint());
    });
    connect(m_connection, &DeviceConnection::deviceKindChanged, this, &MainWindow::setDeviceKind);
    // Each hello stores the device's own spec; a change of its tables is said where it shows.
    connect(m_connection, &DeviceConnection::helloReceived, m_session,
            &StoreSession::recordDeviceSpec);
    connect(m_session, &StoreSession::deviceSpecNoted, this, [this](const QString &note) {
        m_devices->details()->setSpecNote(note);
        statusBar()->showMessage(note, 15000);
    });
}

Status MainWindow::connectDevice(const DeviceEntry &entry)
{
    m_devices->setCurrentTarget(entry.target);
    const Status connected = m_connection->connectTo(entry);
    if (!connected)
        return connected;
    QSettings().remove(QStringLiteral("device/target"));  // not offline any more
    maybeStartFirstRun();
    return {};
}

void MainWindow::setDeviceKind(const QString &kind)
{
    m_deviceKind = kind;
    m_deviceTables->setCurrentDevice(kind);
    m_explore->setDeviceKind(kind);
    m_models->setDeviceKind(kind);
    m_compare->setDeviceKind(kind);
    if (m_connection->isConnected()) {
        m_sweep->setDevice(m_connection->sweepEndpoint());
        m_explore->setApplyDevice(m_connection->applyEndpoint());
    }
}

// Only on a simulated Jetson, only into an empty store, and only once both are known.
void MainWindow::maybeStartFirstRun()
{
    if (!m_firstRunEnabled || m_storeEmpty != 1 || m_session->path().isEmpty() ||
        !m_connection->entry().simulated() || m_connection->deviceKind().isEmpty())
        return;
    m_firstRunEnabled = false;
    m_firstRun->start(m_session->path(), m_connection->deviceKind());
}

void MainWindow::setDeviceClient(DeviceClient *client)
{
    m_deviceClient = client;
    m_deviceStatus->setClient(client);
    m_reconnectAction->setEnabled(client != nullptr);
}

void MainWindow::setPresentationMode(bool on)
{
    m_presenting = on;
    m_presentAction->setChecked(on);
    QFont font = m_normalFont;
    if (on)
        font.setPointSizeF(m_normalFont.pointSizeF() * kPresentationScale);
    QApplication::setFont(font);
    statusBar()->showMessage(on ? tr("Presentation mode: F11 to leave") : QString(), 5000);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
    // The kind the views show until a device says its own (offline work keeps it).
    setDeviceKind(
        settings.value(QStringLiteral("device/kind"), QStringLiteral("orin-agx")).toString());
    if (settings.value(QStringLiteral("window/presentation"), false).toBool())
        setPresentationMode(true);
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/tab"), m_tabs->currentIndex());
    settings.setValue(QStringLiteral("window/presentation"), m_presenting);
    settings.setValue(QStringLiteral("device/kind"), m_deviceKind);
    if (!m_session->path().isEmpty())
        settings.setValue(QStringLiteral("store/path"), m_session->path());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_explore->isApplying()) {
        const auto answer = QMessageBox::question(
            this, tr("A mode is being applied"),
            tr("Quit while a mode is being applied? The device goes back to its previous mode "
               "by itself, since nobody confirms the new one."));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
    }
    saveSettings();
    m_session->cancelImport();
    m_sweep->cancel();
    m_models->cancel();
    event->accept();
}

void MainWindow::chooseImportFile()
{
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Import measurements"), settings.value(QStringLiteral("import/dir")).toString(),
        tr("PowerTrain CSV (*.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("import/dir"), QFileInfo(path).absolutePath());
    importFile(path);
}

void MainWindow::chooseImportFolder()
{
    QSettings settings;
    const QString path = QFileDialog::getExistingDirectory(
        this, tr("Import raw run folders: a pm_… folder or the folder that holds them"),
        settings.value(QStringLiteral("import/dir")).toString());
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("import/dir"), path);
    importFile(path);
}

void MainWindow::showImportOutcome(const ImportOutcome &outcome)
{
    m_cancelAction->setEnabled(false);
    const QString text = outcome.describe();
    statusBar()->showMessage(text.section(QLatin1Char('\n'), 0, 0), 15000);
    if (!outcome.dryRun) {
        m_explore->reload();
        m_models->reload();
    }
    // A check, or folders left out: the person needs the whole list, not a status line.
    if (outcome.dryRun || outcome.rejectedFolders() > 0) {
        auto *box = new QMessageBox(outcome.rejectedFolders() > 0 ? QMessageBox::Warning
                                                                  : QMessageBox::Information,
                                    outcome.dryRun ? tr("Check of the import") : tr("Import"),
                                    text.section(QLatin1Char('\n'), 0, 0), QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("importOutcomeBox"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setTextFormat(Qt::PlainText);
        box->setDetailedText(text);
        box->open();
    }
}

void MainWindow::importFile(const QString &filePath)
{
    ImportDialog dialog(filePath, m_deviceTables->currentDevice(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_cancelAction->setEnabled(true);
    m_progress->setRange(0, 0);
    m_session->import(dialog.request());
}

void MainWindow::chooseExportFile()
{
    const auto [device, workload] = m_measurements->currentSelection();
    if (workload.isEmpty())
        return;
    QSettings settings;
    const QString suggested = QDir(settings.value(QStringLiteral("export/dir")).toString())
                                  .filePath(QStringLiteral("%1.csv").arg(workload));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export measurements"), suggested,
                                                      tr("PowerTrain CSV (*.csv)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    m_session->exportCsv(device, workload, path);
}

void MainWindow::exportChart()
{
    QSettings settings;
    const QString name = viewNames().value(m_tabs->currentIndex());
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export chart"),
        QDir(settings.value(QStringLiteral("export/dir")).toString()).filePath(name + ".png"),
        tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    QString error;
    bool ok = false;
    if (m_tabs->currentWidget() == m_explore)
        ok = m_explore->exportChart(path, &error);
    else if (m_tabs->currentWidget() == m_compare)
        ok = m_compare->exportCharts(path, &error);
    else
        ok = ViewExport::writeImage(m_tabs->currentWidget(), path, &error);
    if (!ok)
        showError(error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 10000);
}

void MainWindow::exportTable()
{
    // Explore's concurrent mode has no table on screen but every pair behind its chart.
    const bool pairs = m_tabs->currentWidget() == m_explore &&
        m_explore->mode() == ExplorePanel::Mode::Concurrent && m_explore->concurrent()->space();
    QAbstractItemView *table = ViewExport::visibleTable(m_tabs->currentWidget());
    if (!table && !pairs) {
        statusBar()->showMessage(tr("This view shows no table to export"), 10000);
        return;
    }
    QSettings settings;
    const QString name = viewNames().value(m_tabs->currentIndex());
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export table"),
        QDir(settings.value(QStringLiteral("export/dir")).toString()).filePath(name + ".csv"),
        tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    QString error;
    const QByteArray csv =
        pairs ? m_explore->concurrent()->pairsCsv() : ViewExport::tableCsv(*table->model());
    if (!ViewExport::writeFile(path, csv, &error))
        showError(error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 10000);
}

void MainWindow::chooseDatabase()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Open or create a database"), m_session->path(),
                                     tr("Workbench database (*.sqlite *.db);;All files (*)"),
                                     nullptr, QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty())
        m_session->open(path);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About PowerTrain Workbench"),
                       tr("<h3>PowerTrain Workbench %1</h3><p>Profiling, prediction and selection "
                          "of power modes for DNN training on NVIDIA Jetson devices.</p>")
                           .arg(QApplication::applicationVersion()));
}

void MainWindow::showError(const QString &message)
{
    m_cancelAction->setEnabled(false);
    statusBar()->showMessage(message, 30000);
    // open(), not exec(): the window keeps rendering, and nothing waits on a nested loop.
    auto *box = new QMessageBox(QMessageBox::Warning, tr("PowerTrain Workbench"), message,
                                QMessageBox::Ok, this);
    makePlain(box);  // error texts quote devices, files and the store
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::setBusy(bool busy)
{
    m_progress->setVisible(busy);
    m_importAction->setEnabled(!busy);
    m_importFoldersAction->setEnabled(!busy);
}

}  // namespace ptwb::ui
