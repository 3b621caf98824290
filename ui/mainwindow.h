#pragma once

#include "util/expected.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QProgressBar;
class QTabWidget;

namespace ptwb {
class DeviceClient;
struct ImportOutcome;
}  // namespace ptwb

namespace ptwb::ui {

class ComparePanel;
class DeviceConnection;
class DevicesPanel;
class DeviceStatusLabel;
class DeviceTablesView;
class ExplorePanel;
class FirstRunGuide;
class MeasurementsView;
class ModelsPanel;
class StoreSession;
class SweepPanel;
struct DeviceEntry;

// The workbench window: Explore (the trade-off, budgets, Apply), Sweep, Models, Compare,
// Devices, Measurements and Device tables, with the store behind a worker and the device behind
// a DeviceConnection. It wires the views to each other; each view does its own job.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    // The views in tab order; names as --view takes them.
    enum class View { Explore, Sweep, Models, Compare, Devices, Measurements, DeviceTables };
    static QStringList viewNames();

    explicit MainWindow(StoreSession *session, QWidget *parent = nullptr);
    ~MainWindow() override;

    StoreSession *session() const { return m_session; }
    ExplorePanel *explore() const { return m_explore; }
    SweepPanel *sweep() const { return m_sweep; }
    ModelsPanel *models() const { return m_models; }
    ComparePanel *compare() const { return m_compare; }
    DevicesPanel *devices() const { return m_devices; }
    DeviceTablesView *deviceTables() const { return m_deviceTables; }
    MeasurementsView *measurements() const { return m_measurements; }
    QTabWidget *tabs() const { return m_tabs; }
    FirstRunGuide *firstRun() const { return m_firstRun; }
    DeviceStatusLabel *deviceStatus() const { return m_deviceStatus; }
    DeviceConnection *connection() const { return m_connection; }

    void showView(View view);
    // Connects the views to this device (its own connection, owned by the window).
    Status connectDevice(const DeviceEntry &entry);
    // A device connection made elsewhere (not owned); null for offline work.
    void setDeviceClient(DeviceClient *client);
    // An empty store on a simulated Jetson gets the simulated starter data (FirstRunGuide).
    void setFirstRunEnabled(bool enabled) { m_firstRunEnabled = enabled; }
    bool isPresenting() const { return m_presenting; }

public Q_SLOTS:
    void importFile(const QString &filePath);
    void setPresentationMode(bool on);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void addView(QWidget *view, const QString &title, View which);
    void createMenus();
    void wireViews();
    void restoreSettings();
    void saveSettings() const;
    void setDeviceKind(const QString &kind);
    void maybeStartFirstRun();
    void chooseImportFile();
    void chooseImportFolder();
    void showImportOutcome(const ptwb::ImportOutcome &outcome);
    void chooseExportFile();
    void exportChart();
    void exportTable();
    void chooseDatabase();
    void showAbout();
    void showError(const QString &message);
    void setBusy(bool busy);

    StoreSession *m_session;
    QTabWidget *m_tabs;
    ExplorePanel *m_explore;
    SweepPanel *m_sweep;
    ModelsPanel *m_models;
    ComparePanel *m_compare;
    DevicesPanel *m_devices;
    MeasurementsView *m_measurements;
    DeviceTablesView *m_deviceTables;
    DeviceStatusLabel *m_deviceStatus;
    DeviceConnection *m_connection;
    FirstRunGuide *m_firstRun;
    DeviceClient *m_deviceClient = nullptr;
    QLabel *m_dbStatus;
    QProgressBar *m_progress;
    QAction *m_importAction = nullptr;
    QAction *m_importFoldersAction = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_reconnectAction = nullptr;
    QAction *m_presentAction = nullptr;
    QFont m_normalFont;
    QString m_deviceKind;  // of the device the views show
    bool m_presenting = false;
    bool m_firstRunEnabled = false;
    int m_storeEmpty = -1;  // unknown until the store's summaries arrive
};

}  // namespace ptwb::ui
