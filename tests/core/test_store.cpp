#include "store/batchview.h"
#include "store/schema.h"
#include "store/store.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace ptwb;

namespace {

QByteArray fileHash(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

Measurement sample(int cores, double time, double power)
{
    Measurement m;
    m.mode = {cores, 2201600, 1300500000, 3199000000};
    m.timeMs = time;
    m.powerW = power;
    m.source = QStringLiteral("import");
    return m;
}

// A raw sqlite3 handle for setting up files the Store must refuse.
void rawExec(const QString &path, const char *sql)
{
    sqlite3 *db = nullptr;
    QCOMPARE(sqlite3_open(QFile::encodeName(path).constData(), &db), SQLITE_OK);
    char *error = nullptr;
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
    const QString message = QString::fromUtf8(error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
    QVERIFY2(rc == SQLITE_OK, qPrintable(message));
}

}  // namespace

class TestStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void createsCurrentSchemaWithWal()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/folder/w.sqlite"));
        Expected<std::unique_ptr<Store>> store = Store::open(path);
        QVERIFY2(store.ok(), qPrintable(store.error()));
        SqliteConnection &db = (*store)->connection();
        QCOMPARE(*Schema::version(db), Schema::kCurrentVersion);
        QCOMPARE(*db.queryInt(QStringLiteral("PRAGMA application_id")), Schema::kApplicationId);
        auto mode = db.prepare(QStringLiteral("PRAGMA journal_mode"));
        QVERIFY(mode.ok() && *mode->step());
        QCOMPARE(mode->columnText(0), QStringLiteral("wal"));
        QCOMPARE(*db.queryInt(QStringLiteral("PRAGMA foreign_keys")), qint64(1));
    }

    void reopenKeepsData()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.sqlite"));
        {
            auto store = Store::open(path);
            QVERIFY(store.ok());
            const auto record = (*store)->addImport(
                QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("resnet18"),
                QStringLiteral("r.csv"), QStringLiteral("ab"),
                {sample(12, 100, 40), sample(8, 150, 30)});
            QVERIFY2(record.ok(), qPrintable(record.error()));
        }
        auto store = Store::open(path);
        QVERIFY(store.ok());
        const auto rows =
            (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("resnet18"));
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 2);
        QCOMPARE(rows->at(1).mode.cores, 8);
        QCOMPARE(rows->at(1).timeMs, 150.0);
        QVERIFY(!rows->at(0).timeSpreadMs.has_value());
        QVERIFY((*store)->findImport(QStringLiteral("orin-agx"), QStringLiteral("resnet18"),
                                     QStringLiteral("ab")));
        QVERIFY(!(*store)->findImport(QStringLiteral("orin-agx"), QStringLiteral("other"),
                                      QStringLiteral("ab")));
    }

    void migratesVersion1WithItsData()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("old.sqlite"));
        {
            Expected<SqliteConnection> db = SqliteConnection::open(path, true);
            QVERIFY(db.ok());
            QVERIFY(Schema::migrate(*db, 1).ok());
            QCOMPARE(*Schema::version(*db), 1);
            QVERIFY(
                db->exec(QStringLiteral(
                             "INSERT INTO devices VALUES (1, 'lab-orin', 'orin-agx', 'then');"
                             "INSERT INTO workloads VALUES (1, 'bert', 'then');"
                             "INSERT INTO measurements (device_id, workload_id, cores, cpu_khz, "
                             "gpu_hz, emc_hz, time_ms, power_w, source, measured_at) VALUES "
                             "(1, 1, 12, 2201600, 1300500000, 3199000000, 321.5, 41.25, "
                             "'sweep', '2025-01-01T00:00:00Z')"))
                    .ok());
        }
        auto store = Store::open(path);
        QVERIFY2(store.ok(), qPrintable(store.error()));
        QCOMPARE(*Schema::version((*store)->connection()), Schema::kCurrentVersion);
        const auto rows =
            (*store)->measurements(QStringLiteral("lab-orin"), QStringLiteral("bert"));
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->first().timeMs, 321.5);
        QCOMPARE(rows->first().source, QStringLiteral("sweep"));
        QVERIFY(rows->first().bootId.isEmpty());
        // The version 2 columns exist and work on the migrated file.
        QVERIFY((*store)
                    ->connection()
                    .exec(QStringLiteral("UPDATE measurements SET boot_id = 'b1', "
                                         "time_spread_ms = 2.5"))
                    .ok());
        QCOMPARE((*store)
                     ->measurements(QStringLiteral("lab-orin"), QStringLiteral("bert"))
                     ->first()
                     .bootId,
                 QStringLiteral("b1"));
    }

    // Version 5 names the reference's device on every transferred model, filled in on migration.
    void migratesVersion4ModelsWithTheirReferenceDevice()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v4.sqlite"));
        {
            Expected<SqliteConnection> db = SqliteConnection::open(path, true);
            QVERIFY(db.ok());
            QVERIFY(Schema::migrate(*db, 4).ok());
            const char *columns = "INSERT INTO models (id, device, device_kind, workload, method, "
                                  "config, feature_layout, reference_model_id, seed, training_ids, "
                                  "metrics, time_model, power_model, created_at) VALUES ";
            QVERIFY(db->exec(QString::fromLatin1(columns) +
                             QStringLiteral("(1, 'lab-orin', 'orin-agx', 'resnet', 'reference', "
                                            "'default', 'log', NULL, 0, '[]', '{}', x'00', x'00', "
                                            "'then'),"
                                            "(2, 'nano-1', 'orin-nano', 'net', 'pt', 'default', "
                                            "'log', 1, 0, '[]', '{}', x'00', x'00', 'then')"))
                        .ok());
        }
        auto store = Store::open(path);
        QVERIFY2(store.ok(), qPrintable(store.error()));
        const Expected<ModelRecord> transferred = (*store)->model(2);
        QVERIFY2(transferred.ok(), qPrintable(transferred.error()));
        QCOMPARE(transferred->referenceDevice, QStringLiteral("lab-orin"));
        QCOMPARE(transferred->referenceDeviceKind, QStringLiteral("orin-agx"));
        QVERIFY(transferred->acrossDevices());
        QCOMPARE(transferred->timeModel, QByteArray(1, '\0'));
        const Expected<ModelRecord> reference = (*store)->model(1);
        QVERIFY(reference->referenceDeviceKind.isEmpty());
        QVERIFY(!reference->acrossDevices());
    }

    // Version 6 adds the inference batch size; every row stored before is a training row.
    void migratesVersion5RowsAsTraining()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v5.sqlite"));
        {
            Expected<SqliteConnection> db = SqliteConnection::open(path, true);
            QVERIFY(db.ok());
            QVERIFY(Schema::migrate(*db, 5).ok());
            QCOMPARE(*Schema::version(*db), 5);
            QVERIFY(db->exec(QStringLiteral(
                                 "INSERT INTO devices VALUES (1, 'orin-agx', 'orin-agx', 'then');"
                                 "INSERT INTO workloads VALUES (1, 'resnet18', 'then');"
                                 "INSERT INTO measurements (device_id, workload_id, cores, "
                                 "cpu_khz, gpu_hz, emc_hz, time_ms, power_w, source, "
                                 "measured_at, minibatches) VALUES "
                                 "(1, 1, 12, 2201600, 1300500000, 3199000000, 321.5, 41.25, "
                                 "'sweep', '2025-01-01T00:00:00Z', 40), "
                                 "(1, 1, 8, 2201600, 1300500000, 3199000000, 401.5, 35.5, "
                                 "'import', '2025-01-01T00:00:00Z', NULL)"))
                        .ok());
        }
        auto store = Store::open(path);
        QVERIFY2(store.ok(), qPrintable(store.error()));
        SqliteConnection &db = (*store)->connection();
        QCOMPARE(*Schema::version(db), Schema::kCurrentVersion);
        QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM measurements WHERE "
                                             "inference_batch IS NULL")),
                 qint64(2));
        const auto rows =
            (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("resnet18"));
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 2);
        QCOMPARE(rows->at(0).timeMs, 321.5);
        QCOMPARE(rows->at(0).minibatches, 40);
        QCOMPARE(rows->at(0).inferenceBatch, 0);
        QCOMPARE(rows->at(1).inferenceBatch, 0);
        const auto summaries = (*store)->summaries();
        QVERIFY(summaries.ok());
        QVERIFY(!summaries->first().isInference());
        // The migrated file takes inference rows, and a zero batch is refused by the schema.
        QVERIFY(!db.exec(QStringLiteral("UPDATE measurements SET inference_batch = 0")).ok());
    }

    // Version 7 gives every training row stored before its batch: 16 for imported rows (the
    // public files'), the built-in run's batch for a sweep's rows, unknown for a command's; the
    // planned rows of old sweeps profile the run's own batch.
    void migratesVersion6RowsWithTheirTrainingBatch()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v6.sqlite"));
        {
            Expected<SqliteConnection> db = SqliteConnection::open(path, true);
            QVERIFY(db.ok());
            QVERIFY(Schema::migrate(*db, 6).ok());
            const Status filled = db->exec(QStringLiteral(
                "INSERT INTO devices VALUES (1, 'orin-agx', 'orin-agx', 'then');"
                "INSERT INTO workloads VALUES (1, 'resnet18', 'then');"
                "INSERT INTO workloads VALUES (2, 'mine', 'then');"
                "INSERT INTO workloads VALUES (3, 'resnet18-inference', 'then');"
                "INSERT INTO sweep_modes (sweep_id, position, cores, cpu_khz, gpu_hz, emc_hz) "
                "VALUES (1, 0, 12, 2201600, 1300500000, 3199000000);"
                "INSERT INTO measurements (id, device_id, workload_id, cores, cpu_khz, gpu_hz, "
                "emc_hz, time_ms, power_w, source, measured_at, sweep_id, inference_batch) VALUES "
                "(1, 1, 1, 12, 2201600, 1300500000, 3199000000, 300, 40, 'sweep', 'then', 1, NULL),"
                "(2, 1, 1, 8, 2201600, 1300500000, 3199000000, 350, 35, 'import', 'then', NULL, "
                "NULL),"
                "(3, 1, 2, 8, 2201600, 1300500000, 3199000000, 350, 35, 'sweep', 'then', 2, NULL),"
                "(4, 1, 3, 8, 2201600, 1300500000, 3199000000, 30, 25, 'import', 'then', NULL, "
                "4)"));
            QVERIFY2(filled.ok(), qPrintable(filled.error()));
            // the plans as version 6 wrote them: the run is JSON text inside the plan's JSON
            const QString builtinRun =
                QStringLiteral(R"({"kind":"builtin","name":"resnet18","batch_size":32})");
            const QString commandRun = QStringLiteral(R"({"kind":"command","argv":["python3"]})");
            int id = 0;
            for (const QString &run : {builtinRun, commandRun}) {
                auto insert = db->prepare(QStringLiteral(
                    "INSERT INTO sweeps (id, device_id, workload_id, plan, state, created_at) "
                    "VALUES (?1, 1, ?2, ?3, 'done', 'then')"));
                QVERIFY(insert.ok());
                ++id;
                insert->bind(1, qint64(id));
                insert->bind(2, qint64(id));
                insert->bind(
                    3,
                    QString::fromUtf8(QJsonDocument(QJsonObject {{QStringLiteral("mode_set"),
                                                                  QStringLiteral("random:1")},
                                                                 {QStringLiteral("run"), run}})
                                          .toJson(QJsonDocument::Compact)));
                QVERIFY(insert->run().ok());
            }
        }
        auto store = Store::open(path);
        QVERIFY2(store.ok(), qPrintable(store.error()));
        SqliteConnection &db = (*store)->connection();
        QCOMPARE(*Schema::version(db), Schema::kCurrentVersion);
        QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM measurements")), qint64(4));
        const auto rows =
            (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("resnet18"));
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 2);
        QCOMPARE(rows->at(0).trainingBatch, 32);  // the sweep's built-in run
        QCOMPARE(rows->at(1).trainingBatch, 16);  // imported: the public files' batch
        QVERIFY(!rows->at(0).peakPowerW);
        const auto command =
            (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("mine"));
        QCOMPARE(command->at(0).trainingBatch, 0);  // a command's batch is not known
        const auto inference = (*store)->measurements(QStringLiteral("orin-agx"),
                                                      QStringLiteral("resnet18-inference"));
        QCOMPARE(inference->at(0).trainingBatch, 0);
        QCOMPARE(inference->at(0).inferenceBatch, 4);
        QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM sweep_modes WHERE batch_size "
                                             "IS NULL")),
                 qint64(1));
        QVERIFY(!db.exec(QStringLiteral("UPDATE measurements SET training_batch = 0")).ok());
    }

    // Version 8 adds the saved workload definitions and a failed mode's output: a version 7
    // file keeps every row of every table, its sweeps load as before (no output), and the new
    // table and column work on the migrated file.
    void migratesVersion7KeepingEveryRow()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v7.sqlite"));
        // as version 7 wrote it: the run is JSON text inside the plan's JSON
        const QString plan = QString::fromUtf8(
            QJsonDocument(
                QJsonObject {{QStringLiteral("mode_set"), QStringLiteral("random:2")},
                             {QStringLiteral("run"),
                              QStringLiteral(R"({"kind":"command","argv":["python3","t.py"]})")},
                             {QStringLiteral("repeats"), 1}})
                .toJson(QJsonDocument::Compact));
        {
            Expected<SqliteConnection> db = SqliteConnection::open(path, true);
            QVERIFY(db.ok());
            QVERIFY(Schema::migrate(*db, 7).ok());
            QCOMPARE(*Schema::version(*db), 7);
            const Status filled = db->exec(QStringLiteral(
                "INSERT INTO devices VALUES (1, 'orin-agx', 'orin-agx', 'then');"
                "INSERT INTO workloads VALUES (1, 'mine', 'then');"
                "INSERT INTO measurements (id, device_id, workload_id, cores, cpu_khz, gpu_hz, "
                "emc_hz, time_ms, power_w, source, measured_at, sweep_id, peak_power_w) VALUES "
                "(1, 1, 1, 12, 2201600, 1300500000, 3199000000, 300, 40, 'sweep', 'then', 1, 45),"
                "(2, 1, 1, 8, 2201600, 1300500000, 3199000000, 350, 35, 'import', 'then', NULL, "
                "NULL);"
                "INSERT INTO sweep_modes (sweep_id, position, cores, cpu_khz, gpu_hz, emc_hz, "
                "state, measurement_id, reason) VALUES "
                "(1, 0, 12, 2201600, 1300500000, 3199000000, 'done', 1, NULL),"
                "(1, 1, 8, 2201600, 1300500000, 3199000000, 'failed', NULL, 'it broke');"
                "INSERT INTO convergence (workload_id, batch_size, samples, provenance, "
                "recorded_at) VALUES (1, 16, 1000, 'user', 'then');"));
            QVERIFY2(filled.ok(), qPrintable(filled.error()));
            auto insert = db->prepare(
                QStringLiteral("INSERT INTO sweeps (id, device_id, workload_id, plan, state, "
                               "created_at) VALUES (1, 1, 1, ?1, 'paused', 'then')"));
            QVERIFY(insert.ok());
            insert->bind(1, plan);
            QVERIFY(insert->run().ok());
        }
        auto store = Store::open(path);
        QVERIFY2(store.ok(), qPrintable(store.error()));
        SqliteConnection &db = (*store)->connection();
        QCOMPARE(*Schema::version(db), Schema::kCurrentVersion);
        for (const auto &[table, rows] :
             {std::pair("devices", 1), std::pair("workloads", 1), std::pair("measurements", 2),
              std::pair("sweeps", 1), std::pair("sweep_modes", 2), std::pair("convergence", 1)}) {
            QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM %1").arg(table)),
                     qint64(rows));
        }
        QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM sweep_modes WHERE output IS "
                                             "NULL")),
                 qint64(2));
        auto stored = db.prepare(QStringLiteral("SELECT plan, reason FROM sweeps, sweep_modes "
                                                "WHERE sweep_modes.state = 'failed'"));
        QVERIFY(stored.ok() && *stored->step());
        QCOMPARE(stored->columnText(0), plan);  // the recorded run, byte for byte
        QCOMPARE(stored->columnText(1), QStringLiteral("it broke"));
        const auto rows =
            (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("mine"));
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 2);
        QCOMPARE(*rows->at(0).peakPowerW, 45.0);
        QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM workload_definitions")),
                 qint64(0));
        QVERIFY(db.exec(QStringLiteral("INSERT INTO workload_definitions (name, definition, "
                                       "created_at, updated_at) VALUES ('mine', '{}', 'now', "
                                       "'now')"))
                    .ok());
        // names are unique
        QVERIFY(!db.exec(QStringLiteral("INSERT INTO workload_definitions (name, definition, "
                                        "created_at, updated_at) VALUES ('mine', '{}', 'now', "
                                        "'now')"))
                     .ok());
    }

    void trainingBatchAndPeakAreStoredAndLoaded()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
        QVERIFY(store.ok());
        Measurement at8 = sample(12, 50, 30);
        at8.trainingBatch = 8;
        at8.peakPowerW = 36.5;
        Measurement at64 = sample(12, 300, 42);
        at64.trainingBatch = 64;
        QVERIFY((*store)
                    ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("r"), QStringLiteral("r.csv"), QStringLiteral("ef"),
                                {at8, at64})
                    .ok());
        const auto loaded = (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("r"));
        QVERIFY(loaded.ok());
        QCOMPARE(loaded->at(0).trainingBatch, 8);
        QCOMPARE(loaded->at(0).peakPowerW, std::optional<double>(36.5));
        QCOMPARE(loaded->at(1).trainingBatch, 64);
        QVERIFY(!loaded->at(1).peakPowerW);
    }

    // A workload at several training batch sizes is listed with one view per batch, "NAME@B",
    // whose rows are the workload's rows at that batch; such names are never stored.
    void batchViewsOfAWorkloadAtSeveralBatchSizes()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
        QVERIFY(store.ok());
        QVector<Measurement> rows;
        for (int batch : {8, 32}) {
            for (int cores : {4, 8, 12}) {
                Measurement m = sample(cores, 10.0 * batch + cores, 20 + cores);
                m.trainingBatch = batch;
                rows.append(m);
            }
        }
        rows.append(rows.first());  // a repeat at batch 8
        QVERIFY((*store)
                    ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("r"), QStringLiteral("r.csv"), QStringLiteral("ab"),
                                rows)
                    .ok());
        QVERIFY((*store)
                    ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("one"), QStringLiteral("o.csv"),
                                QStringLiteral("cd"), {sample(4, 100, 20)})
                    .ok());
        const auto summaries = (*store)->summaries();
        QVERIFY2(summaries.ok(), qPrintable(summaries.error()));
        QStringList names;
        for (const WorkloadSummary &s : *summaries)
            names.append(s.workload);
        QCOMPARE(names,
                 (QStringList {QStringLiteral("one"), QStringLiteral("r"), QStringLiteral("r@8"),
                               QStringLiteral("r@32")}));
        const WorkloadSummary &all = summaries->at(1);
        QVERIFY(all.mixesBatches() && !all.isTrainable() && !all.batchView);
        QCOMPARE(all.trainingBatches, (QVector<int> {8, 32}));
        const WorkloadSummary &at8 = summaries->at(2);
        QVERIFY(at8.batchView && at8.isTrainable());
        QCOMPARE(at8.measurements, qint64(4));
        QCOMPARE(at8.distinctModes, qint64(3));
        QVERIFY(summaries->at(0).isTrainable() && !summaries->at(0).batchView);
        QCOMPARE(summaries->at(0).trainingBatches, (QVector<int> {0}));  // not known

        const auto view =
            (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("r@32"));
        QVERIFY(view.ok());
        QCOMPARE(view->size(), 3);
        for (const Measurement &m : *view)
            QCOMPARE(m.trainingBatch, 32);
        QCOMPARE(*(*store)->deviceOfWorkload(QStringLiteral("r@32"), {}),
                 QStringLiteral("orin-agx"));
        QVERIFY(
            (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("r@64"))->isEmpty());

        // A view's name is never a stored workload: nothing is stored under it.
        const auto refused = (*store)->addImport(
            QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("r@16"),
            QStringLiteral("x.csv"), QStringLiteral("ef"), {sample(4, 100, 20)});
        QVERIFY(!refused.ok());
        QCOMPARE(refused.errorKind(), ErrorKind::BadInput);
        QVERIFY2(refused.error().contains(QLatin1String("'r@16' names batch 16 of workload 'r'")),
                 qPrintable(refused.error()));
        QCOMPARE(*(*store)->connection().queryInt(QStringLiteral("SELECT count(*) FROM workloads")),
                 qint64(2));
        // Only "@" and a batch of 1..4096 without leading zeros make a view.
        QVERIFY(!BatchView::of(QStringLiteral("r@032")));
        QVERIFY(!BatchView::of(QStringLiteral("r@0")));
        QVERIFY(!BatchView::of(QStringLiteral("r@5000")));
        QVERIFY(!BatchView::of(QStringLiteral("@32")));
        QVERIFY(!BatchView::of(QStringLiteral("user@host")));
        QCOMPARE(BatchView::of(QStringLiteral("a@b@64"))->workload, QStringLiteral("a@b"));
    }

    void inferenceBatchIsStoredAndLoaded()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
        QVERIFY(store.ok());
        QVector<Measurement> rows;
        for (int batch : {1, 4, 64}) {
            Measurement m = sample(12, 10.0 * batch, 40);
            m.inferenceBatch = batch;
            rows.append(m);
        }
        rows.append(rows.first());  // a repeat of (mode, 1)
        const auto record = (*store)->addImport(
            QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("r_infer"),
            QStringLiteral("r.csv"), QStringLiteral("ab"), rows);
        QVERIFY2(record.ok(), qPrintable(record.error()));
        const auto loaded =
            (*store)->measurements(QStringLiteral("orin-agx"), QStringLiteral("r_infer"));
        QVERIFY(loaded.ok());
        QCOMPARE(loaded->size(), 4);
        QCOMPARE(loaded->at(0).inferenceBatch, 1);
        QCOMPARE(loaded->at(1).inferenceBatch, 4);
        QCOMPARE(loaded->at(2).inferenceBatch, 64);
        QCOMPARE(loaded->at(2).timeMs, 640.0);
        const auto summaries = (*store)->summaries();
        QVERIFY(summaries.ok());
        QCOMPARE(summaries->first().measurements, qint64(4));
        QCOMPARE(summaries->first().distinctModes, qint64(1));
        QCOMPARE(summaries->first().inferenceBatches, (QVector<int> {1, 4, 64}));

        const auto inference = (*store)->inferenceMeasurements(QStringLiteral("r_infer"), {});
        QVERIFY2(inference.ok(), qPrintable(inference.error()));
        QCOMPARE(inference->size(), 4);

        QVERIFY((*store)
                    ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("r_train"), QStringLiteral("t.csv"),
                                QStringLiteral("cd"), {sample(12, 100, 40)})
                    .ok());
        const auto training = (*store)->inferenceMeasurements(QStringLiteral("r_train"), {});
        QVERIFY(!training.ok());
        QCOMPARE(training.errorKind(), ErrorKind::BadInput);
        QCOMPARE(training.error(),
                 QStringLiteral("workload 'r_train' on orin-agx holds training measurements, not "
                                "inference ones (import a file with a bs column)"));
    }

    // A workload holds one kind of measurement: adding the other kind stores nothing.
    void aWorkloadHoldsOneKind()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.sqlite"));
        auto store = Store::open(path);
        QVERIFY(store.ok());
        Measurement inference = sample(12, 10, 40);
        inference.inferenceBatch = 16;
        QVERIFY((*store)
                    ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("w"), QStringLiteral("i.csv"), QStringLiteral("i"),
                                {inference})
                    .ok());
        const auto mixed =
            (*store)->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("w"), QStringLiteral("t.csv"), QStringLiteral("t"),
                                {sample(12, 100, 40), sample(8, 100, 40)});
        QVERIFY(!mixed.ok());
        QCOMPARE(mixed.errorKind(), ErrorKind::BadInput);
        QCOMPARE(mixed.error(),
                 QStringLiteral("workload 'w' on orin-agx holds 1 inference measurements and "
                                "t.csv has training ones; import it under another workload name "
                                "(a workload holds one kind only); nothing was stored"));
        QCOMPARE(*(*store)->connection().queryInt(QStringLiteral("SELECT count(*) FROM "
                                                                 "measurements")),
                 qint64(1));
        QCOMPARE(*(*store)->connection().queryInt(QStringLiteral("SELECT count(*) FROM imports")),
                 qint64(1));
        // The same rows under their own name are fine.
        QVERIFY((*store)
                    ->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("w_train"), QStringLiteral("t.csv"),
                                QStringLiteral("t"), {sample(12, 100, 40)})
                    .ok());
    }

    void refusesNewerSchemaUntouched()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("new.sqlite"));
        QVERIFY(Store::open(path).ok());
        rawExec(path,
                "PRAGMA user_version = 99; PRAGMA wal_checkpoint(TRUNCATE);"
                "PRAGMA journal_mode = DELETE;");
        const QByteArray before = fileHash(path);
        const auto store = Store::open(path);
        QVERIFY(!store.ok());
        QCOMPARE(store.errorKind(), ErrorKind::BadInput);
        QCOMPARE(store.error(),
                 path +
                     QStringLiteral(": written by a newer PowerTrain Workbench "
                                    "(schema version 99; this version reads "
                                    "up to %1); it was left untouched")
                         .arg(Schema::kCurrentVersion));
        QCOMPARE(fileHash(path), before);
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
    }

    void refusesNonSqliteUntouched()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("notes.sqlite"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("these are my notes, not a database\n");
        file.close();
        const QByteArray before = fileHash(path);
        const auto store = Store::open(path);
        QVERIFY(!store.ok());
        QCOMPARE(store.errorKind(), ErrorKind::BadInput);
        QCOMPARE(store.error(),
                 path +
                     QStringLiteral(": not a PowerTrain Workbench database (not "
                                    "an SQLite file); it was left untouched"));
        QCOMPARE(fileHash(path), before);
    }

    void refusesForeignSqliteUntouched()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("other.sqlite"));
        rawExec(path, "CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x');");
        const QByteArray before = fileHash(path);
        const auto store = Store::open(path);
        QVERIFY(!store.ok());
        QVERIFY2(store.error().contains(QStringLiteral("an SQLite database of another "
                                                       "application")),
                 qPrintable(store.error()));
        QCOMPARE(fileHash(path), before);
    }

    void failedImportLeavesNothing()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
        QVERIFY(store.ok());
        // The third row violates CHECK (time_ms > 0): the whole import must roll back.
        const auto record =
            (*store)->addImport(QStringLiteral("orin-agx"), QStringLiteral("orin-agx"),
                                QStringLiteral("w"), QStringLiteral("f.csv"), QStringLiteral("h"),
                                {sample(1, 1, 1), sample(2, 2, 2), sample(3, -1, 3)});
        QVERIFY(!record.ok());
        SqliteConnection &db = (*store)->connection();
        QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM measurements")), qint64(0));
        QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM imports")), qint64(0));
        QCOMPARE(*db.queryInt(QStringLiteral("SELECT count(*) FROM workloads")), qint64(0));
    }

    void cancelledImportLeavesNothing()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
        QVERIFY(store.ok());
        QVector<Measurement> rows(2500, sample(4, 10, 10));
        QVector<qint64> reports;
        const auto record = (*store)->addImport(
            QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("w"),
            QStringLiteral("f.csv"), QStringLiteral("h"), rows, [&reports](qint64 done, qint64) {
                reports.append(done);
                return done < 2000;
            });
        QVERIFY(!record.ok());
        QCOMPARE(reports, (QVector<qint64> {1000, 2000}));
        QCOMPARE(
            *(*store)->connection().queryInt(QStringLiteral("SELECT count(*) FROM measurements")),
            qint64(0));
    }

    void deviceKindConflict()
    {
        QTemporaryDir dir;
        auto store = Store::open(dir.filePath(QStringLiteral("w.sqlite")));
        QVERIFY(store.ok());
        QVERIFY((*store)->ensureDevice(QStringLiteral("bench-1"), QStringLiteral("orin-agx")).ok());
        const auto again =
            (*store)->ensureDevice(QStringLiteral("bench-1"), QStringLiteral("orin-nano"));
        QVERIFY(!again.ok());
        QCOMPARE(
            again.error(),
            QStringLiteral("device 'bench-1' is of kind orin-agx in this store, not orin-nano"));
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "test_store.moc"
