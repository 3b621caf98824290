#pragma once

#include "store/importer.h"
#include "store/measurement.h"

#include <QFuture>
#include <QList>
#include <QObject>
#include <QVector>

#include <atomic>
#include <memory>

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
    bool isBusy() const { return m_busy > 0; }

public Q_SLOTS:
    // Opens (creating or migrating) the store, then reloads the summaries.
    void open(const QString &path);
    void reloadSummaries();
    void loadMeasurements(const QString &device, const QString &workload);
    void import(const ptwb::ImportRequest &request);
    void cancelImport();
    void exportCsv(const QString &device, const QString &workload, const QString &filePath);

Q_SIGNALS:
    void opened(const QString &path);
    void summariesLoaded(const QVector<ptwb::WorkloadSummary> &summaries);
    void measurementsLoaded(const QString &device, const QString &workload,
                            const QVector<ptwb::Measurement> &rows);
    void importProgress(qint64 done, qint64 total);
    void importFinished(const QString &message);
    void exportFinished(const QString &message);
    void failed(const QString &message);
    void busyChanged(bool busy);

private:
    template<typename Work>
    void runInBackground(Work work);

    QString m_path;
    int m_busy = 0;
    // Waited for on destruction, so no task outlives the object it reports to.
    QList<QFuture<void>> m_tasks;
    std::shared_ptr<std::atomic<bool>> m_cancelImport;
    // Each request carries a generation so a slow, outdated load never overwrites a newer one.
    quint64 m_measurementsGeneration = 0;
};

}  // namespace ptwb::ui
