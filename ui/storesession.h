#pragma once

#include "backgroundtasks.h"
#include "store/importer.h"
#include "store/measurement.h"

#include <QObject>
#include <QVector>

namespace ptwb {
struct DeviceInfo;
}  // namespace ptwb

namespace ptwb::ui {

// The window's handle on the database: runs every store operation on a worker thread with its
// own connection (SQLite connections are per thread) and reports back with signals, so the GUI
// thread only renders.
class StoreSession : public QObject
{
    Q_OBJECT

public:
    explicit StoreSession(QObject *parent = nullptr);
    ~StoreSession() override;

    const QString &path() const { return m_path; }
    bool isBusy() const;

public Q_SLOTS:
    // Opens (creating or migrating) the store, then reloads the summaries.
    void open(const QString &path);
    void reloadSummaries();
    void loadMeasurements(const QString &device, const QString &workload);
    void import(const ptwb::ImportRequest &request);
    void cancelImport();
    void exportCsv(const QString &device, const QString &workload, const QString &filePath);
    // Stores the spec a connected device reported (recordDeviceSpec): `address` is its target.
    void recordDeviceSpec(const QString &address, const ptwb::DeviceInfo &info);

Q_SIGNALS:
    void opened(const QString &path);
    void summariesLoaded(const QVector<ptwb::WorkloadSummary> &summaries);
    void measurementsLoaded(const QString &device, const QString &workload,
                            const QVector<ptwb::Measurement> &rows);
    void importProgress(qint64 done, qint64 total);
    void importFinished(const ptwb::ImportOutcome &outcome);
    void exportFinished(const QString &message);
    // What recording a device's spec has to say (its tables changed; no spec could be built).
    void deviceSpecNoted(const QString &note);
    void failed(const QString &message);
    void busyChanged(bool busy);

private:
    BackgroundTasks *m_tasks;
    QString m_path;
    QString m_importKey;  // of the newest import, for cancelImport
    int m_imports = 0;
    int m_exports = 0;
    int m_specRecords = 0;
};

}  // namespace ptwb::ui
