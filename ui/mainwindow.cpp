#include "mainwindow.h"

#include "deviceclient.h"
#include "devicestatuslabel.h"

#include "devicetablesview.h"
#include "importdialog.h"
#include "measurementsview.h"
#include "storesession.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>

namespace ptwb::ui {

MainWindow::MainWindow(StoreSession *session, QWidget *parent)
    : QMainWindow(parent)
    , m_session(session)
    , m_tabs(new QTabWidget(this))
    , m_deviceTables(new DeviceTablesView(this))
    , m_measurements(new MeasurementsView(this))
    , m_deviceStatus(new DeviceStatusLabel(this))
    , m_dbStatus(new QLabel(this))
    , m_progress(new QProgressBar(this))
{
    setWindowTitle(tr("PowerTrain Workbench"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_measurements, tr("&Measurements"));
    m_tabs->addTab(m_deviceTables, tr("De&vice tables"));
    setCentralWidget(m_tabs);

    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    statusBar()->addWidget(m_deviceStatus);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_dbStatus);

    createActions();

    connect(m_session, &StoreSession::opened, this, [this](const QString &path) {
        m_dbStatus->setText(QFileInfo(path).fileName());
        m_dbStatus->setToolTip(path);
    });
    connect(m_session, &StoreSession::summariesLoaded, m_measurements,
            &MeasurementsView::setSummaries);
    connect(m_session, &StoreSession::summariesLoaded, this,
            [this](const QVector<WorkloadSummary> &summaries) {
                m_exportAction->setEnabled(!summaries.isEmpty());
            });
    connect(m_measurements, &MeasurementsView::selectionChanged, m_session,
            &StoreSession::loadMeasurements);
    connect(m_session, &StoreSession::measurementsLoaded, m_measurements,
            &MeasurementsView::setMeasurements);
    connect(m_session, &StoreSession::importProgress, this, [this](qint64 done, qint64 total) {
        m_progress->setRange(0, int(total));
        m_progress->setValue(int(done));
    });
    connect(m_session, &StoreSession::importFinished, this, [this](const QString &message) {
        m_cancelAction->setEnabled(false);
        statusBar()->showMessage(message, 15000);
    });
    connect(m_session, &StoreSession::exportFinished, this,
            [this](const QString &message) { statusBar()->showMessage(message, 15000); });
    connect(m_session, &StoreSession::failed, this, &MainWindow::showError);
    connect(m_session, &StoreSession::busyChanged, this, &MainWindow::setBusy);

    restoreSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open database…"), this, &MainWindow::chooseDatabase);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open or create a workbench database (SQLite)"));
    file->addSeparator();
    m_importAction = file->addAction(tr("&Import CSV…"), this, &MainWindow::chooseImportFile);
    m_importAction->setShortcut(QKeySequence(tr("Ctrl+I")));
    m_importAction->setToolTip(tr("Import measurements in the public PowerTrain CSV layout"));
    m_exportAction = file->addAction(tr("&Export CSV…"), this, &MainWindow::chooseExportFile);
    m_exportAction->setShortcut(QKeySequence(tr("Ctrl+E")));
    m_exportAction->setToolTip(tr("Export the workload shown in the PowerTrain CSV layout"));
    m_exportAction->setEnabled(false);
    m_cancelAction = file->addAction(tr("&Cancel import"), m_session, &StoreSession::cancelImport);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setEnabled(false);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *device = menuBar()->addMenu(tr("&Device"));
    m_reconnectAction = device->addAction(tr("&Reconnect"), this, [this] {
        if (m_deviceClient)
            m_deviceClient->connectToDevice();
    });
    m_reconnectAction->setObjectName(QStringLiteral("reconnectAction"));
    m_reconnectAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_reconnectAction->setToolTip(tr("Start the device's agent again and ask who it is"));
    m_reconnectAction->setEnabled(false);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About PowerTrain Workbench"), this, &MainWindow::showAbout);

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(m_importAction);
    toolbar->addAction(m_exportAction);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
    m_deviceTables->setCurrentDevice(
        settings.value(QStringLiteral("device/kind"), QStringLiteral("orin-agx")).toString());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/tab"), m_tabs->currentIndex());
    settings.setValue(QStringLiteral("device/kind"), m_deviceTables->currentDevice());
    if (!m_session->path().isEmpty())
        settings.setValue(QStringLiteral("store/path"), m_session->path());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    m_session->cancelImport();
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

void MainWindow::setDeviceClient(DeviceClient *client)
{
    m_deviceClient = client;
    m_deviceStatus->setClient(client);
    m_reconnectAction->setEnabled(client != nullptr);
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
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::setBusy(bool busy)
{
    m_progress->setVisible(busy);
    m_importAction->setEnabled(!busy);
}

}  // namespace ptwb::ui
