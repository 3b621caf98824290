#include "store/schema.h"

namespace ptwb {

namespace {

// Version 1: devices, workloads, sweeps and bare measurements.
const char kVersion1[] = R"sql(
CREATE TABLE devices (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE workloads (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);
CREATE TABLE sweeps (
    id          INTEGER PRIMARY KEY,
    device_id   INTEGER NOT NULL REFERENCES devices(id),
    workload_id INTEGER NOT NULL REFERENCES workloads(id),
    plan        TEXT NOT NULL,
    state       TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE TABLE measurements (
    id          INTEGER PRIMARY KEY,
    device_id   INTEGER NOT NULL REFERENCES devices(id),
    workload_id INTEGER NOT NULL REFERENCES workloads(id),
    cores       INTEGER NOT NULL,
    cpu_khz     INTEGER NOT NULL,
    gpu_hz      INTEGER NOT NULL,
    emc_hz      INTEGER NOT NULL,
    time_ms     REAL NOT NULL CHECK (time_ms > 0),
    power_w     REAL NOT NULL CHECK (power_w > 0),
    source      TEXT NOT NULL,
    measured_at TEXT NOT NULL,
    sweep_id    INTEGER REFERENCES sweeps(id)
);
CREATE INDEX measurements_by_workload ON measurements (device_id, workload_id);
)sql";

// Version 2: provenance (which file or sweep, which boot of the device) and the spread of the
// clean window, so a measurement can be trusted, traced and imported only once.
const char kVersion2[] = R"sql(
CREATE TABLE imports (
    id          INTEGER PRIMARY KEY,
    device_id   INTEGER NOT NULL REFERENCES devices(id),
    workload_id INTEGER NOT NULL REFERENCES workloads(id),
    file_name   TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    rows        INTEGER NOT NULL,
    imported_at TEXT NOT NULL,
    UNIQUE (device_id, workload_id, sha256)
);
ALTER TABLE measurements ADD COLUMN import_id INTEGER REFERENCES imports(id);
ALTER TABLE measurements ADD COLUMN boot_id TEXT;
ALTER TABLE measurements ADD COLUMN minibatches INTEGER;
ALTER TABLE measurements ADD COLUMN time_spread_ms REAL;
ALTER TABLE measurements ADD COLUMN power_spread_w REAL;
CREATE INDEX measurements_by_mode ON measurements (device_id, workload_id, cores, cpu_khz, gpu_hz, emc_hz);
)sql";

// Version 3: trained prediction models with everything needed to use them again.
const char kVersion3[] = R"sql(
CREATE TABLE models (
    id                 INTEGER PRIMARY KEY,
    device             TEXT NOT NULL,
    device_kind        TEXT NOT NULL,
    workload           TEXT NOT NULL,
    method             TEXT NOT NULL CHECK (method IN ('reference', 'nn', 'pt')),
    config             TEXT NOT NULL,
    feature_layout     TEXT NOT NULL,
    reference_model_id INTEGER REFERENCES models(id),
    seed               INTEGER NOT NULL,
    training_ids       TEXT NOT NULL,
    metrics            TEXT NOT NULL,
    time_model         BLOB NOT NULL,
    power_model        BLOB NOT NULL,
    created_at         TEXT NOT NULL
);
CREATE INDEX models_by_workload ON models (device_kind, workload, method);
)sql";

// Version 4: sweeps as stored plans. Every planned (mode, repeat) is a row that a profiled mode
// turns from pending to done (with its measurement) or failed (with the reason), in the same
// transaction as the measurement, so a sweep resumes with no duplicate and no gap.
const char kVersion4[] = R"sql(
ALTER TABLE sweeps ADD COLUMN target TEXT NOT NULL DEFAULT '';
ALTER TABLE sweeps ADD COLUMN minibatches INTEGER NOT NULL DEFAULT 40;
CREATE TABLE sweep_modes (
    sweep_id       INTEGER NOT NULL REFERENCES sweeps(id),
    position       INTEGER NOT NULL,
    cores          INTEGER NOT NULL,
    cpu_khz        INTEGER NOT NULL,
    gpu_hz         INTEGER NOT NULL,
    emc_hz         INTEGER NOT NULL,
    repeat         INTEGER NOT NULL DEFAULT 0,
    state          TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
    measurement_id INTEGER REFERENCES measurements(id),
    reason         TEXT,
    attempts       INTEGER NOT NULL DEFAULT 0,
    target         TEXT,
    finished_at    TEXT,
    PRIMARY KEY (sweep_id, position)
);
)sql";

// Version 5: a transferred model names the device its reference model was trained on, so a
// transfer across device kinds keeps both devices in its provenance. Existing rows are filled in
// from their reference model.
const char kVersion5[] = R"sql(
ALTER TABLE models ADD COLUMN reference_device TEXT;
ALTER TABLE models ADD COLUMN reference_device_kind TEXT;
UPDATE models SET
    reference_device = (SELECT r.device FROM models r WHERE r.id = models.reference_model_id),
    reference_device_kind = (SELECT r.device_kind FROM models r WHERE r.id = models.reference_model_id)
WHERE reference_model_id IS NOT NULL;
)sql";

// Version 6: inference measurements carry their inference minibatch size (requests per
// minibatch, and time_ms is the time of one such minibatch). NULL is a training measurement, so
// every row stored before stays what it was.
const char kVersion6[] = R"sql(
ALTER TABLE measurements ADD COLUMN inference_batch INTEGER CHECK (inference_batch > 0);
)sql";

// Version 7: batch size as a knob. A training measurement records the minibatch size it was
// taken at (training_batch; NULL: unknown), every measurement may record its peak power beside
// the median (a power cap binds on the peak), and a sweep's planned row may name the batch size
// it profiles (NULL: the sweep's own run). Existing training rows get their batch: the built-in
// run's batch_size for a sweep's rows, 16 for imported rows (the public files' batch), NULL for
// the rows of a sweep of the user's own command (its batch is not known). A workload may have
// one relation between its training minibatch size and the samples it needs to reach a target
// accuracy (convergence): one row per batch size, all of one provenance (entered or imported by
// the user, measured by a proxy run, or the simulator's model). It belongs to the workload, not
// to a device: how many samples training needs does not depend on the hardware that runs it.
const char kVersion7[] = R"sql(
ALTER TABLE sweep_modes ADD COLUMN batch_size INTEGER CHECK (batch_size > 0);
ALTER TABLE measurements ADD COLUMN training_batch INTEGER CHECK (training_batch > 0);
ALTER TABLE measurements ADD COLUMN peak_power_w REAL;
UPDATE measurements SET training_batch = 16
WHERE inference_batch IS NULL AND sweep_id IS NULL;
UPDATE measurements SET training_batch = (
    SELECT json_extract(json_extract(s.plan, '$.run'), '$.batch_size') FROM sweeps s
    WHERE s.id = measurements.sweep_id AND json_valid(s.plan)
      AND json_valid(json_extract(s.plan, '$.run'))
      AND json_extract(json_extract(s.plan, '$.run'), '$.kind') = 'builtin')
WHERE inference_batch IS NULL AND sweep_id IS NOT NULL;
CREATE TABLE convergence (
    id              INTEGER PRIMARY KEY,
    workload_id     INTEGER NOT NULL REFERENCES workloads(id),
    batch_size      INTEGER NOT NULL CHECK (batch_size > 0),
    samples         REAL NOT NULL CHECK (samples > 0),
    target_accuracy REAL,
    provenance      TEXT NOT NULL CHECK (provenance IN ('user', 'proxy', 'simulated')),
    source          TEXT,
    recorded_at     TEXT NOT NULL,
    UNIQUE (workload_id, batch_size)
);
)sql";

// Version 8: the researcher's own workloads saved by name (WorkloadDefinition::toJson as
// `definition`; device_kind NULL: any device), and a failed mode's last output lines (a JSON
// array as on the wire, sanitised) beside its reason. A definition is not a workload row:
// removing one never touches the measurements stored under its name.
const char kVersion8[] = R"sql(
CREATE TABLE workload_definitions (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    device_kind TEXT,
    definition  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
ALTER TABLE sweep_modes ADD COLUMN output TEXT;
)sql";

// Version 9: a connected device's own spec (issue 22): the tables and presets it reported (as
// DeviceSpec::toJson) under the spec's stable id (its family and a hash of the tables), and
// which specs each device has had. A JetPack upgrade that changes a device's tables adds a spec
// beside the one before; neither is replaced.
const char kVersion9[] = R"sql(
CREATE TABLE device_specs (
    id         TEXT PRIMARY KEY,
    family     TEXT NOT NULL,
    model      TEXT NOT NULL,
    l4t        TEXT,
    spec       TEXT NOT NULL,
    first_seen TEXT NOT NULL
);
CREATE TABLE device_spec_history (
    device     TEXT NOT NULL,
    spec_id    TEXT NOT NULL REFERENCES device_specs(id),
    first_seen TEXT NOT NULL,
    last_seen  TEXT NOT NULL,
    seen_order INTEGER NOT NULL,  -- increases with every sighting: the newest is the highest
    PRIMARY KEY (device, spec_id)
);
)sql";

const char *const kMigrations[] = {kVersion1, kVersion2, kVersion3, kVersion4, kVersion5,
                                   kVersion6, kVersion7, kVersion8, kVersion9};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == Schema::kCurrentVersion,
              "one migration per schema version");

}  // namespace

Expected<int> Schema::version(SqliteConnection &db)
{
    const Expected<qint64> version = db.queryInt(QStringLiteral("PRAGMA user_version"));
    if (!version)
        return Expected<int>::failure(version.error());
    return static_cast<int>(*version);
}

Status Schema::checkCompatible(SqliteConnection &db)
{
    const Expected<qint64> applicationId = db.queryInt(QStringLiteral("PRAGMA application_id"));
    if (!applicationId) {
        return Status::failure(QStringLiteral("%1: not a usable SQLite database (%2); it was left "
                                              "untouched")
                                   .arg(db.path(), applicationId.error()),
                               ErrorKind::BadInput);
    }
    const Expected<int> current = version(db);
    const Expected<qint64> tables =
        db.queryInt(QStringLiteral("SELECT count(*) FROM sqlite_schema WHERE type = 'table'"));
    if (!current || !tables) {
        return Status::failure(QStringLiteral("%1: cannot read the schema: %2")
                                   .arg(db.path(), current ? tables.error() : current.error()));
    }
    const bool empty = *applicationId == 0 && *current == 0 && *tables == 0;
    if (!empty && *applicationId != kApplicationId) {
        return Status::failure(
            QStringLiteral("%1: an SQLite database of another application (application_id %2), "
                           "not a PowerTrain Workbench store; it was left untouched")
                .arg(db.path())
                .arg(*applicationId),
            ErrorKind::BadInput);
    }
    if (*current > kCurrentVersion) {
        return Status::failure(
            QStringLiteral("%1: written by a newer PowerTrain Workbench (schema version %2; this "
                           "version reads up to %3); it was left untouched")
                .arg(db.path())
                .arg(*current)
                .arg(kCurrentVersion),
            ErrorKind::BadInput);
    }
    return {};
}

Status Schema::migrate(SqliteConnection &db, int targetVersion)
{
    const Expected<int> current = version(db);
    if (!current)
        return Status::failure(current.error());
    for (int next = *current + 1; next <= targetVersion; ++next) {
        // BEGIN IMMEDIATE: take the write lock first so two processes never both migrate.
        Status status = db.exec(QStringLiteral("BEGIN IMMEDIATE"));
        if (!status)
            return Status::failure(QStringLiteral("%1: cannot start schema migration to version "
                                                  "%2: %3")
                                       .arg(db.path())
                                       .arg(next)
                                       .arg(status.error()));
        // Another process may have migrated while we waited for the lock.
        const Expected<int> now = version(db);
        if (now && *now >= next) {
            db.rollback();
            continue;
        }
        status = db.exec(QString::fromUtf8(kMigrations[next - 1]));
        if (status) {
            status = db.exec(QStringLiteral("PRAGMA application_id = %1; PRAGMA user_version = %2")
                                 .arg(kApplicationId)
                                 .arg(next));
        }
        if (status)
            status = db.exec(QStringLiteral("COMMIT"));
        if (!status) {
            db.rollback();
            return Status::failure(QStringLiteral("%1: schema migration to version %2 failed and "
                                                  "was rolled back: %3")
                                       .arg(db.path())
                                       .arg(next)
                                       .arg(status.error()));
        }
    }
    return {};
}

}  // namespace ptwb
