#include "store/store.h"

#include "store/batchview.h"
#include "store/devicespecstore.h"
#include "store/schema.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>

#include <algorithm>

namespace ptwb {

QString utcNow()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

Transaction::Transaction(SqliteConnection &db)
    : m_db(db)
    , m_begun(db.exec(QStringLiteral("BEGIN IMMEDIATE")))
    , m_open(m_begun.ok())
{
}

Transaction::~Transaction()
{
    if (m_open)
        m_db.rollback();
}

Status Transaction::commit()
{
    Status status = m_db.exec(QStringLiteral("COMMIT"));
    if (status)
        m_open = false;
    return status;
}

QString Store::defaultPath()
{
    // ~/.local/share/powertrain-workbench/workbench.sqlite on Linux.
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    return QDir(dir).filePath(QStringLiteral("powertrain-workbench/workbench.sqlite"));
}

Expected<std::unique_ptr<Store>> Store::open(const QString &path)
{
    using Result = Expected<std::unique_ptr<Store>>;
    if (Status header = checkSqliteHeader(path); !header)
        return passOn<Result>(header);
    const QFileInfo info(path);
    if (!info.exists() && !QDir().mkpath(info.absolutePath())) {
        return Result::failure(
            QStringLiteral("%1: cannot create the folder %2").arg(path, info.absolutePath()));
    }
    Expected<SqliteConnection> db = SqliteConnection::open(path, true);
    if (!db)
        return Result::failure(db.error());
    // A store ptwb may not write is no bad input: it is said as it is, and left as it was.
    if (db->isReadOnly()) {
        return Result::failure(QStringLiteral("%1: the store cannot be written (read-only: the "
                                              "file or its folder is not writable by this "
                                              "user); it was left untouched")
                                   .arg(path));
    }
    if (Status compatible = Schema::checkCompatible(*db); !compatible)
        return passOn<Result>(compatible);
    // WAL: readers (the GUI) never block the writer (a sweep); FULL: a measurement that was
    // committed survives a power cut of the desktop too.
    if (Status status = db->exec(QStringLiteral("PRAGMA journal_mode = WAL; "
                                                "PRAGMA synchronous = FULL; "
                                                "PRAGMA foreign_keys = ON"));
        !status) {
        return Result::failure(QStringLiteral("%1: %2").arg(path, status.error()));
    }
    if (Status status = Schema::migrate(*db); !status)
        return Result::failure(status.error());
    std::unique_ptr<Store> store(new Store(std::move(db).value()));
    if (Status known = DeviceSpecStore(*store).rememberAll(); !known)
        return Result::failure(QStringLiteral("%1: %2").arg(path, known.error()));
    return store;
}

// The no-op DO UPDATE makes RETURNING give the existing row as well as a new one.
Expected<qint64> Store::ensureDevice(const QString &name, const QString &kind)
{
    auto upsert = m_db.prepare(
        QStringLiteral("INSERT INTO devices (name, kind, created_at) VALUES (?1, ?2, ?3) "
                       "ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id, kind"));
    if (!upsert)
        return Expected<qint64>::failure(upsert.error());
    upsert->bind(1, name);
    upsert->bind(2, kind);
    upsert->bind(3, utcNow());
    const Expected<bool> row = upsert->step();
    if (!row)
        return Expected<qint64>::failure(row.error());
    const qint64 id = upsert->columnInt(0);
    const QString storedKind = upsert->columnText(1);
    upsert->reset();
    if (storedKind != kind) {
        return Expected<qint64>::failure(
            QStringLiteral("device '%1' is of kind %2 in this store, not %3")
                .arg(name, storedKind, kind));
    }
    return id;
}

Status Store::checkWorkloadName(const QString &name)
{
    if (const std::optional<BatchView> view = BatchView::of(name)) {
        return Status::badInput(
            InputField::Workload,
            QStringLiteral("'%1' names batch %2 of workload '%3' (NAME@BATCH is how the "
                           "workbench reads one training batch of a workload); store it as "
                           "'%3' with its batch size (a batch_size column, or a sweep's "
                           "--batch-sizes %2)")
                .arg(name)
                .arg(view->batch)
                .arg(view->workload));
    }
    return {};
}

Expected<qint64> Store::ensureWorkload(const QString &name)
{
    if (Status ok = checkWorkloadName(name); !ok)
        return passOn<Expected<qint64>>(ok);
    auto upsert = m_db.prepare(
        QStringLiteral("INSERT INTO workloads (name, created_at) VALUES (?1, ?2) "
                       "ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id"));
    if (!upsert)
        return Expected<qint64>::failure(upsert.error());
    upsert->bind(1, name);
    upsert->bind(2, utcNow());
    const Expected<bool> row = upsert->step();
    if (!row)
        return Expected<qint64>::failure(row.error());
    const qint64 id = upsert->columnInt(0);
    upsert->reset();
    return id;
}

std::optional<QString> Store::deviceKind(const QString &name)
{
    auto select = m_db.prepare(QStringLiteral("SELECT kind FROM devices WHERE name = ?1"));
    if (!select)
        return std::nullopt;
    select->bind(1, name);
    const Expected<bool> row = select->step();
    if (!row || !*row)
        return std::nullopt;
    return select->columnText(0);
}

std::optional<ImportRecord> Store::findImport(const QString &device, const QString &workload,
                                              const QString &sha256)
{
    auto select = m_db.prepare(QStringLiteral(
        "SELECT i.id, i.file_name, i.sha256, i.rows, i.imported_at FROM imports i "
        "JOIN devices d ON d.id = i.device_id JOIN workloads w ON w.id = i.workload_id "
        "WHERE d.name = ?1 AND w.name = ?2 AND i.sha256 = ?3"));
    if (!select)
        return std::nullopt;
    select->bind(1, device);
    select->bind(2, workload);
    select->bind(3, sha256);
    const Expected<bool> row = select->step();
    if (!row || !*row)
        return std::nullopt;
    return ImportRecord {select->columnInt(0), select->columnText(1), select->columnText(2),
                         select->columnInt(3), select->columnText(4)};
}

Expected<ImportRecord> Store::addImport(const QString &device, const QString &kind,
                                        const QString &workload, const QString &fileName,
                                        const QString &sha256, const QVector<Measurement> &rows,
                                        const Progress &progress)
{
    Expected<QVector<ImportRecord>> records =
        addImports(device, kind, workload, {{fileName, sha256, rows}}, progress);
    if (!records)
        return passOn<Expected<ImportRecord>>(records);
    return records->front();
}

Expected<QVector<ImportRecord>> Store::addImports(const QString &device, const QString &kind,
                                                  const QString &workload,
                                                  const QVector<ImportSource> &sources,
                                                  const Progress &progress)
{
    using Result = Expected<QVector<ImportRecord>>;
    Transaction transaction(m_db);
    if (!transaction.begun())
        return Result::failure(transaction.begun().error());
    const Expected<qint64> deviceId = ensureDevice(device, kind);
    if (!deviceId)
        return Result::failure(deviceId.error());
    const Expected<qint64> workloadId = ensureWorkload(workload);
    if (!workloadId)
        return passOn<Result>(workloadId);
    if (Status same = checkOneKind(*deviceId, *workloadId, device, workload, sources); !same)
        return passOn<Result>(same);

    auto insertImport = m_db.prepare(QStringLiteral(
        "INSERT INTO imports (device_id, workload_id, file_name, sha256, rows, imported_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
    if (!insertImport)
        return Result::failure(insertImport.error());
    auto insert = m_db.prepare(measurementInsertSql());
    if (!insert)
        return Result::failure(insert.error());
    qint64 total = 0;
    for (const ImportSource &source : sources)
        total += source.rows.size();

    const QString now = utcNow();
    QVector<ImportRecord> records;
    qint64 done = 0;
    for (const ImportSource &source : sources) {
        ImportRecord record {0, source.fileName, source.sha256, source.rows.size(), now};
        insertImport->bind(1, *deviceId);
        insertImport->bind(2, *workloadId);
        insertImport->bind(3, source.fileName);
        insertImport->bind(4, source.sha256);
        insertImport->bind(5, record.rows);
        insertImport->bind(6, record.importedAt);
        if (Status status = insertImport->run(); !status)
            return Result::failure(status.error());
        record.id = m_db.lastInsertRowId();
        for (const Measurement &row : source.rows) {
            bindMeasurement(*insert, *deviceId, *workloadId, row, QStringLiteral("import"),
                            record.importedAt, record.id, std::nullopt);
            if (Status status = insert->run(); !status)
                return Result::failure(status.error());
            ++done;
            if (progress && done % kProgressInterval == 0 && !progress(done, total))
                return Result::failure(QStringLiteral("cancelled; nothing was stored"));
        }
        records.append(record);
    }
    if (Status status = transaction.commit(); !status)
        return Result::failure(status.error());
    if (progress)
        progress(total, total);
    return records;
}

// A workload holds training measurements or inference ones, never both: every analysis reads a
// workload as one or the other, and a CSV file can only hold one.
Status Store::checkOneKind(qint64 deviceId, qint64 workloadId, const QString &device,
                           const QString &workload, const QVector<ImportSource> &sources)
{
    const auto isInference = [](const Measurement &m) { return m.inferenceBatch > 0; };
    const QString kinds[] = {QStringLiteral("training"), QStringLiteral("inference")};
    std::optional<bool> incoming;
    QString incomingFile;
    for (const ImportSource &source : sources) {
        for (const Measurement &row : source.rows) {
            if (!incoming) {
                incoming = isInference(row);
                incomingFile = source.fileName;
            } else if (*incoming != isInference(row)) {
                return Status::badInput(
                    InputField::Workload,
                    QStringLiteral("%1 has %2 measurements and %3 has %4 ones; a workload holds "
                                   "one kind only")
                        .arg(incomingFile, kinds[*incoming], source.fileName, kinds[!*incoming]));
            }
        }
    }
    if (!incoming)
        return {};
    auto select =
        m_db.prepare(QStringLiteral("SELECT count(*) FROM measurements WHERE device_id = ?1 AND "
                                    "workload_id = ?2 AND (inference_batch IS NOT NULL) = ?3"));
    if (!select)
        return Status::failure(select.error());
    select->bind(1, deviceId);
    select->bind(2, workloadId);
    select->bind(3, qint64(!*incoming));
    const Expected<bool> row = select->step();
    if (!row)
        return Status::failure(row.error());
    if (const qint64 others = select->columnInt(0); others > 0) {
        return Status::badInput(
            InputField::Workload,
            QStringLiteral("workload '%1' on %2 holds %3 %4 measurements and %5 has %6 ones; "
                           "import it under another workload name (a workload holds one kind "
                           "only); nothing was stored")
                .arg(workload, device)
                .arg(others)
                .arg(kinds[!*incoming], incomingFile, kinds[*incoming]));
    }
    return {};
}

QString Store::measurementInsertSql()
{
    return QStringLiteral(
        "INSERT INTO measurements (device_id, workload_id, cores, cpu_khz, gpu_hz, emc_hz, "
        "time_ms, power_w, source, measured_at, import_id, sweep_id, boot_id, minibatches, "
        "time_spread_ms, power_spread_w, inference_batch, training_batch, peak_power_w) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
        "?19)");
}

void Store::bindMeasurement(SqliteStatement &insert, qint64 deviceId, qint64 workloadId,
                            const Measurement &m, const QString &defaultSource,
                            const QString &defaultTime, std::optional<qint64> importId,
                            std::optional<qint64> sweepId)
{
    const auto bindOptional = [&insert](int index, std::optional<qint64> value) {
        if (value)
            insert.bind(index, *value);
        else
            insert.bindNull(index);
    };
    insert.bind(1, deviceId);
    insert.bind(2, workloadId);
    insert.bind(3, qint64(m.mode.cores));
    insert.bind(4, m.mode.cpuKHz);
    insert.bind(5, m.mode.gpuHz);
    insert.bind(6, m.mode.emcHz);
    insert.bind(7, m.timeMs);
    insert.bind(8, m.powerW);
    insert.bind(9, m.source.isEmpty() ? defaultSource : m.source);
    insert.bind(10, m.measuredAt.isEmpty() ? defaultTime : m.measuredAt);
    bindOptional(11, importId);
    bindOptional(12, sweepId);
    if (m.bootId.isEmpty())
        insert.bindNull(13);
    else
        insert.bind(13, m.bootId);
    bindOptional(14, m.minibatches > 0 ? std::optional<qint64>(m.minibatches) : std::nullopt);
    insert.bind(15, m.timeSpreadMs);
    insert.bind(16, m.powerSpreadW);
    bindOptional(17, m.inferenceBatch > 0 ? std::optional<qint64>(m.inferenceBatch) : std::nullopt);
    bindOptional(18,
                 m.inferenceBatch <= 0 && m.trainingBatch > 0
                     ? std::optional<qint64>(m.trainingBatch)
                     : std::nullopt);
    insert.bind(19, m.peakPowerW);
}

Expected<QVector<Measurement>> Store::measurements(const QString &device, const QString &workload)
{
    // "NAME@B": the rows of NAME taken at training batch B (names like that are never stored)
    if (const std::optional<BatchView> view = BatchView::of(workload)) {
        Expected<QVector<Measurement>> rows = storedMeasurements(device, view->workload);
        if (rows) {
            rows->erase(std::remove_if(rows->begin(), rows->end(),
                                       [batch = view->batch](const Measurement &m) {
                                           return m.inferenceBatch > 0 || m.trainingBatch != batch;
                                       }),
                        rows->end());
        }
        return rows;
    }
    return storedMeasurements(device, workload);
}

Expected<QVector<Measurement>> Store::storedMeasurements(const QString &device,
                                                         const QString &workload)
{
    using Result = Expected<QVector<Measurement>>;
    auto select = m_db.prepare(QStringLiteral(
        "SELECT m.id, m.cores, m.cpu_khz, m.gpu_hz, m.emc_hz, m.time_ms, m.power_w, "
        "m.time_spread_ms, m.power_spread_w, m.minibatches, m.source, m.measured_at, m.boot_id, "
        "m.inference_batch, m.training_batch, m.peak_power_w FROM measurements m "
        "JOIN devices d ON d.id = m.device_id "
        "JOIN workloads w ON w.id = m.workload_id WHERE d.name = ?1 AND w.name = ?2 "
        "ORDER BY m.id"));
    if (!select)
        return Result::failure(select.error());
    select->bind(1, device);
    select->bind(2, workload);
    QVector<Measurement> out;
    for (;;) {
        const Expected<bool> row = select->step();
        if (!row)
            return Result::failure(row.error());
        if (!*row)
            break;
        Measurement m;
        m.id = select->columnInt(0);
        m.mode.cores = static_cast<int>(select->columnInt(1));
        m.mode.cpuKHz = select->columnInt(2);
        m.mode.gpuHz = select->columnInt(3);
        m.mode.emcHz = select->columnInt(4);
        m.timeMs = select->columnDouble(5);
        m.powerW = select->columnDouble(6);
        m.timeSpreadMs = select->columnOptionalDouble(7);
        m.powerSpreadW = select->columnOptionalDouble(8);
        m.minibatches = static_cast<int>(select->columnInt(9));
        m.source = select->columnText(10);
        m.measuredAt = select->columnText(11);
        m.bootId = select->columnText(12);
        m.inferenceBatch = static_cast<int>(select->columnInt(13));  // NULL reads as 0: training
        m.trainingBatch = static_cast<int>(select->columnInt(14));  // NULL reads as 0: unknown
        m.peakPowerW = select->columnOptionalDouble(15);
        out.append(m);
    }
    return out;
}

Expected<QVector<Measurement>> Store::inferenceMeasurements(const QString &workload,
                                                            const QString &device)
{
    using Result = Expected<QVector<Measurement>>;
    const Expected<QString> resolved = deviceOfWorkload(workload, device);
    if (!resolved)
        return passOn<Result>(resolved);
    Result rows = measurements(*resolved, workload);
    if (rows && !rows->isEmpty() && rows->front().inferenceBatch <= 0) {
        return Result::badInput(
            InputField::Workload,
            QStringLiteral("workload '%1' on %2 holds training measurements, not inference ones "
                           "(import a file with a bs column)")
                .arg(workload, *resolved));
    }
    return rows;
}

Expected<QString> Store::deviceOfWorkload(const QString &workload, const QString &requested)
{
    const Expected<QVector<WorkloadSummary>> all = summaries();
    if (!all)
        return Expected<QString>::failure(all.error());
    QStringList devices;
    for (const WorkloadSummary &summary : *all) {
        if (summary.workload == workload)
            devices.append(summary.device);
    }
    const auto bad = [](const QString &message) {
        return Expected<QString>::failure(message, ErrorKind::BadInput);
    };
    if (devices.isEmpty())
        return bad(QStringLiteral("%1: no measurements of workload '%2'").arg(path(), workload));
    if (requested.isEmpty()) {
        if (devices.size() > 1) {
            return Expected<QString>::badInput(
                InputField::Device,
                QStringLiteral("workload '%1' was measured on %2; choose one")
                    .arg(workload, devices.join(QStringLiteral(", "))));
        }
        return devices.first();
    }
    if (!devices.contains(requested)) {
        return Expected<QString>::badInput(
            InputField::Device,
            QStringLiteral("workload '%1' has no measurements on '%2'; it has some on %3")
                .arg(workload, requested, devices.join(QStringLiteral(", "))));
    }
    return requested;
}

Expected<QVector<WorkloadSummary>> Store::summaries()
{
    using Result = Expected<QVector<WorkloadSummary>>;
    auto select = m_db.prepare(QStringLiteral(
        "SELECT d.name, d.kind, w.name, count(*), "
        "count(DISTINCT printf('%d/%d/%d/%d', m.cores, m.cpu_khz, m.gpu_hz, m.emc_hz)), "
        "group_concat(DISTINCT m.inference_batch), "
        "group_concat(DISTINCT CASE WHEN m.inference_batch IS NULL THEN "
        "coalesce(m.training_batch, 0) END) "
        "FROM measurements m JOIN devices d ON d.id = m.device_id "
        "JOIN workloads w ON w.id = m.workload_id GROUP BY d.id, w.id ORDER BY d.name, w.name"));
    if (!select)
        return Result::failure(select.error());
    QVector<WorkloadSummary> out;
    for (;;) {
        const Expected<bool> row = select->step();
        if (!row)
            return Result::failure(row.error());
        if (!*row)
            break;
        WorkloadSummary summary;
        summary.device = select->columnText(0);
        summary.deviceKind = select->columnText(1);
        summary.workload = select->columnText(2);
        summary.measurements = select->columnInt(3);
        summary.distinctModes = select->columnInt(4);
        const QStringList batches =
            select->columnText(5).split(QLatin1Char(','), Qt::SkipEmptyParts);
        for (const QString &batch : batches)
            summary.inferenceBatches.append(batch.toInt());
        std::sort(summary.inferenceBatches.begin(), summary.inferenceBatches.end());
        for (const QString &batch :
             select->columnText(6).split(QLatin1Char(','), Qt::SkipEmptyParts))
            summary.trainingBatches.append(batch.toInt());
        std::sort(summary.trainingBatches.begin(), summary.trainingBatches.end());
        out.append(summary);
    }
    select->reset();
    return withBatchViews(out);
}

// Each training workload measured at several batch sizes gets a summary per known batch, right
// after its own: "NAME@B" (BatchView), which every training view and command can use.
Expected<QVector<WorkloadSummary>> Store::withBatchViews(const QVector<WorkloadSummary> &summaries)
{
    using Result = Expected<QVector<WorkloadSummary>>;
    QVector<WorkloadSummary> out;
    for (const WorkloadSummary &summary : summaries) {
        out.append(summary);
        if (!summary.mixesBatches())
            continue;
        auto select = m_db.prepare(QStringLiteral(
            "SELECT m.training_batch, count(*), "
            "count(DISTINCT printf('%d/%d/%d/%d', m.cores, m.cpu_khz, m.gpu_hz, m.emc_hz)) "
            "FROM measurements m JOIN devices d ON d.id = m.device_id JOIN workloads w ON w.id "
            "= m.workload_id WHERE d.name = ?1 AND w.name = ?2 AND m.inference_batch IS NULL "
            "AND m.training_batch IS NOT NULL GROUP BY m.training_batch ORDER BY "
            "m.training_batch"));
        if (!select)
            return Result::failure(select.error());
        select->bind(1, summary.device);
        select->bind(2, summary.workload);
        for (;;) {
            const Expected<bool> row = select->step();
            if (!row)
                return Result::failure(row.error());
            if (!*row)
                break;
            WorkloadSummary view = summary;
            const int batch = int(select->columnInt(0));
            view.workload = BatchView {summary.workload, batch}.name();
            view.measurements = select->columnInt(1);
            view.distinctModes = select->columnInt(2);
            view.trainingBatches = {batch};
            view.batchView = true;
            out.append(view);
        }
    }
    return out;
}

}  // namespace ptwb

namespace ptwb {

namespace {

const QString kModelColumns = QStringLiteral(
    "id, device, device_kind, workload, method, config, feature_layout, reference_model_id, seed, "
    "training_ids, metrics, created_at, reference_device, reference_device_kind");
constexpr int kModelColumnCount = 14;  // the blobs follow these in Store::model

ModelRecord readModelRow(const SqliteStatement &row)
{
    ModelRecord model;
    model.id = row.columnInt(0);
    model.device = row.columnText(1);
    model.deviceKind = row.columnText(2);
    model.workload = row.columnText(3);
    model.method = row.columnText(4);
    model.config = row.columnText(5);
    model.featureLayout = row.columnText(6);
    model.referenceModelId = row.columnInt(7);
    model.seed = quint64(row.columnInt(8));
    const QJsonArray ids = QJsonDocument::fromJson(row.columnText(9).toUtf8()).array();
    for (const QJsonValue &id : ids)
        model.trainingIds.append(qint64(id.toDouble()));
    model.metrics = QJsonDocument::fromJson(row.columnText(10).toUtf8()).object();
    model.createdAt = row.columnText(11);
    model.referenceDevice = row.columnText(12);
    model.referenceDeviceKind = row.columnText(13);
    return model;
}

}  // namespace

Expected<qint64> Store::saveModel(const ModelRecord &model)
{
    auto insert = m_db.prepare(QStringLiteral(
        "INSERT INTO models (device, device_kind, workload, method, config, feature_layout, "
        "reference_model_id, seed, training_ids, metrics, time_model, power_model, created_at, "
        "reference_device, reference_device_kind) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"));
    if (!insert)
        return Expected<qint64>::failure(insert.error());
    QJsonArray ids;
    for (qint64 id : model.trainingIds)
        ids.append(double(id));
    insert->bind(1, model.device);
    insert->bind(2, model.deviceKind);
    insert->bind(3, model.workload);
    insert->bind(4, model.method);
    insert->bind(5, model.config);
    insert->bind(6, model.featureLayout);
    if (model.referenceModelId > 0)
        insert->bind(7, model.referenceModelId);
    else
        insert->bindNull(7);
    insert->bind(8, qint64(model.seed));
    insert->bind(9, QString::fromUtf8(QJsonDocument(ids).toJson(QJsonDocument::Compact)));
    insert->bind(10,
                 QString::fromUtf8(QJsonDocument(model.metrics).toJson(QJsonDocument::Compact)));
    insert->bindBlob(11, model.timeModel);
    insert->bindBlob(12, model.powerModel);
    insert->bind(13, model.createdAt.isEmpty() ? utcNow() : model.createdAt);
    for (const auto &[index, text] :
         {std::pair {14, model.referenceDevice}, std::pair {15, model.referenceDeviceKind}}) {
        if (text.isEmpty())
            insert->bindNull(index);
        else
            insert->bind(index, text);
    }
    if (Status status = insert->run(); !status)
        return Expected<qint64>::failure(status.error());
    return m_db.lastInsertRowId();
}

Expected<ModelRecord> Store::model(qint64 id)
{
    auto select = m_db.prepare(QStringLiteral("SELECT %1, time_model, power_model FROM models "
                                              "WHERE id = ?1")
                                   .arg(kModelColumns));
    if (!select)
        return Expected<ModelRecord>::failure(select.error());
    select->bind(1, id);
    const Expected<bool> row = select->step();
    if (!row)
        return Expected<ModelRecord>::failure(row.error());
    if (!*row) {
        return Expected<ModelRecord>::failure(
            QStringLiteral("%1: no model with id %2").arg(path()).arg(id), ErrorKind::BadInput);
    }
    ModelRecord model = readModelRow(*select);
    model.timeModel = select->columnBlob(kModelColumnCount);
    model.powerModel = select->columnBlob(kModelColumnCount + 1);
    return model;
}

Expected<ModelRecord> Store::latestModel(const QString &deviceKind, const QString &workload,
                                         const QString &method)
{
    auto select = m_db.prepare(QStringLiteral(
        "SELECT id FROM models WHERE (?1 = '' OR device_kind = ?1) AND workload = ?2 "
        "AND (?3 = '' OR method = ?3) ORDER BY id DESC LIMIT 1"));
    if (!select)
        return Expected<ModelRecord>::failure(select.error());
    select->bind(1, deviceKind);
    select->bind(2, workload);
    select->bind(3, method);
    const Expected<bool> row = select->step();
    if (!row)
        return Expected<ModelRecord>::failure(row.error());
    if (!*row) {
        return Expected<ModelRecord>::failure(
            QStringLiteral("%1: no %2model of workload '%3' for %4; train one with 'ptwb %5'")
                .arg(path(), method.isEmpty() ? QString() : method + QLatin1Char(' '), workload,
                     deviceKind,
                     method == QLatin1String("pt") ? QStringLiteral("transfer")
                                                   : QStringLiteral("train")),
            ErrorKind::BadInput);
    }
    return model(select->columnInt(0));
}

Expected<QVector<ModelRecord>> Store::models()
{
    auto select =
        m_db.prepare(QStringLiteral("SELECT %1 FROM models ORDER BY id DESC").arg(kModelColumns));
    if (!select)
        return Expected<QVector<ModelRecord>>::failure(select.error());
    QVector<ModelRecord> out;
    for (;;) {
        const Expected<bool> row = select->step();
        if (!row)
            return Expected<QVector<ModelRecord>>::failure(row.error());
        if (!*row)
            break;
        out.append(readModelRow(*select));
    }
    return out;
}

}  // namespace ptwb
