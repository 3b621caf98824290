#pragma once

#include "store/measurement.h"
#include "store/modelrecord.h"
#include "store/sqlite.h"
#include "util/expected.h"

#include <QVector>

#include <functional>
#include <memory>
#include <optional>

namespace ptwb {

// The workbench's SQLite file: devices, workloads, measurements, imports and sweeps.
// One Store per thread (SQLite connections are not shared). Opening refuses files that are not
// ours or come from a newer version without writing a byte, then migrates older schemas.
class Store
{
public:
    // Called every `kProgressInterval` stored rows; return false to cancel (rolls back).
    using Progress = std::function<bool(qint64 done, qint64 total)>;
    static constexpr qint64 kProgressInterval = 1000;

    static Expected<std::unique_ptr<Store>> open(const QString &path);
    // Where the GUI and the command line keep their store unless told otherwise.
    static QString defaultPath();

    const QString &path() const { return m_db.path(); }
    SqliteConnection &connection() { return m_db; }

    // Finds or creates the device called `name` (of kind `kind`, e.g. "orin-agx").
    Expected<qint64> ensureDevice(const QString &name, const QString &kind);
    Expected<qint64> ensureWorkload(const QString &name);
    // A name the store may hold: not a BatchView ("NAME@32" names batch 32 of NAME).
    static Status checkWorkloadName(const QString &name);
    // The kind of a device already in the store, or nothing.
    std::optional<QString> deviceKind(const QString &name);

    std::optional<ImportRecord> findImport(const QString &device, const QString &workload,
                                           const QString &sha256);
    // Stores one file's measurements in one transaction: all of them or none.
    Expected<ImportRecord> addImport(const QString &device, const QString &deviceKind,
                                     const QString &workload, const QString &fileName,
                                     const QString &sha256, const QVector<Measurement> &rows,
                                     const Progress &progress = {});
    // One import record per source (a file, or one raw run folder), all in one transaction.
    struct ImportSource
    {
        QString fileName;
        QString sha256;
        QVector<Measurement> rows;
    };
    Expected<QVector<ImportRecord>> addImports(const QString &device, const QString &deviceKind,
                                               const QString &workload,
                                               const QVector<ImportSource> &sources,
                                               const Progress &progress = {});

    // In the order they were stored, training and inference alike (Measurement::inferenceBatch
    // is 0 for training rows). Grouping them per mode is TrainingData::fromMeasurements' job,
    // which refuses inference rows.
    // A BatchView name ("NAME@B") gives the training rows of NAME at batch B.
    Expected<QVector<Measurement>> measurements(const QString &device, const QString &workload);
    // The inference measurements of a workload, the device resolved as deviceOfWorkload does
    // (`device` may be empty). A workload of training measurements is bad input.
    Expected<QVector<Measurement>> inferenceMeasurements(const QString &workload,
                                                         const QString &device);
    // Every stored workload per device, and after a training workload measured at several
    // batch sizes, one BatchView summary per known batch ("NAME@B").
    Expected<QVector<WorkloadSummary>> summaries();
    // The device a workload was measured on: `requested` when it has measurements there, else
    // the only one (an error names the devices when there are several, or none).
    Expected<QString> deviceOfWorkload(const QString &workload, const QString &requested);

    // Stores a model (one transaction) and returns its id.
    Expected<qint64> saveModel(const ModelRecord &model);
    // With weights. A missing id is bad input.
    Expected<ModelRecord> model(qint64 id);
    // The newest model of a workload on a device kind ("" for any), of a method ("" for any).
    Expected<ModelRecord> latestModel(const QString &deviceKind, const QString &workload,
                                      const QString &method);
    // Without weights, newest first.
    Expected<QVector<ModelRecord>> models();

    // One measurement row, for writers that hold their own transaction (imports, sweeps):
    // prepare measurementInsertSql() once, then call bindMeasurement() and run() per row.
    // Exactly one of importId and sweepId says where the row came from.
    static QString measurementInsertSql();
    static void bindMeasurement(SqliteStatement &insert, qint64 deviceId, qint64 workloadId,
                                const Measurement &m, const QString &defaultSource,
                                const QString &defaultTime, std::optional<qint64> importId,
                                std::optional<qint64> sweepId);

private:
    Status checkOneKind(qint64 deviceId, qint64 workloadId, const QString &device,
                        const QString &workload, const QVector<ImportSource> &sources);
    Expected<QVector<Measurement>> storedMeasurements(const QString &device,
                                                      const QString &workload);
    Expected<QVector<WorkloadSummary>> withBatchViews(const QVector<WorkloadSummary> &summaries);

    explicit Store(SqliteConnection db)
        : m_db(std::move(db))
    {
    }

    SqliteConnection m_db;
};

// Commits only when told; rolls back otherwise (an error path, an exception, a cancel).
class Transaction
{
public:
    explicit Transaction(SqliteConnection &db);
    ~Transaction();
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;

    const Status &begun() const { return m_begun; }
    Status commit();

private:
    SqliteConnection &m_db;
    Status m_begun;
    bool m_open = false;
};

QString utcNow();

}  // namespace ptwb
