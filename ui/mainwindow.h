#pragma once

#include <QMainWindow>

class QAction;
class QLabel;
class QProgressBar;
class QTabWidget;

namespace ptwb {
class DeviceClient;
}

namespace ptwb::ui {

class DeviceStatusLabel;
class DeviceTablesView;
class MeasurementsView;
class StoreSession;

// The workbench window: device tables and measurements, with the store behind a worker.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(StoreSession *session, QWidget *parent = nullptr);
    ~MainWindow() override;

    DeviceTablesView *deviceTables() const { return m_deviceTables; }
    MeasurementsView *measurements() const { return m_measurements; }
    QTabWidget *tabs() const { return m_tabs; }

    // The device the window talks to (not owned); null for offline work.
    void setDeviceClient(DeviceClient *client);
    DeviceStatusLabel *deviceStatus() const { return m_deviceStatus; }

public Q_SLOTS:
    void importFile(const QString &filePath);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void restoreSettings();
    void saveSettings() const;
    void chooseImportFile();
    void chooseExportFile();
    void chooseDatabase();
    void showAbout();
    void showError(const QString &message);
    void setBusy(bool busy);

    StoreSession *m_session;
    QTabWidget *m_tabs;
    DeviceTablesView *m_deviceTables;
    MeasurementsView *m_measurements;
    DeviceStatusLabel *m_deviceStatus;
    DeviceClient *m_deviceClient = nullptr;
    QLabel *m_dbStatus;
    QProgressBar *m_progress;
    QAction *m_importAction = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_reconnectAction = nullptr;
};

}  // namespace ptwb::ui
