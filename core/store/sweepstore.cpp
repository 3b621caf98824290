#include "store/sweepstore.h"

#include "store/store.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace ptwb {

namespace {

// The store's words for the states, in one place (the files' `state` columns).
const std::pair<SweepState, const char *> kSweepStates[] = {
    {SweepState::Planned, "planned"},
    {SweepState::Running, "running"},
    {SweepState::Paused, "paused"},
    {SweepState::Cancelled, "cancelled"},
    {SweepState::Interrupted, "interrupted"},
    {SweepState::Done, "done"},
    {SweepState::Failed, "failed"}};
const std::pair<SweepItem::State, const char *> kItemStates[] = {
    {SweepItem::State::Pending, "pending"},
    {SweepItem::State::Done, "done"},
    {SweepItem::State::Failed, "failed"}};

QString planJson(const SweepPlan &plan)
{
    QJsonObject object {{QStringLiteral("mode_set"), plan.modeSet},
                        {QStringLiteral("run"), plan.run},
                        {QStringLiteral("repeats"), plan.repeats},
                        {QStringLiteral("seed"), QString::number(plan.seed)},
                        {QStringLiteral("device_kind"), plan.deviceKind}};
    if (!plan.batchSizes.isEmpty()) {
        QJsonArray sizes;
        for (int size : plan.batchSizes)
            sizes.append(size);
        object.insert(QStringLiteral("batch_sizes"), sizes);
    }
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

// Each mode at every batch size (in that order; 0, the run's own, when there are none).
QVector<PlannedItem> itemsOf(const QVector<PowerMode> &modes, const QVector<int> &batchSizes)
{
    const QVector<int> sizes = batchSizes.isEmpty() ? QVector<int> {0} : batchSizes;
    QVector<PlannedItem> items;
    items.reserve(modes.size() * sizes.size());
    for (const PowerMode &mode : modes) {
        for (int batch : sizes)
            items.append({mode, batch});
    }
    return items;
}

// Rows for `planned` from `position` on, each `repeats` times in a row.
Expected<QVector<SweepItem>> insertItems(SqliteConnection &db, qint64 sweepId, int position,
                                         const QVector<PlannedItem> &planned, int repeats)
{
    using Result = Expected<QVector<SweepItem>>;
    auto insert = db.prepare(QStringLiteral(
        "INSERT INTO sweep_modes (sweep_id, position, cores, cpu_khz, gpu_hz, emc_hz, repeat, "
        "batch_size) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
    if (!insert)
        return Result::failure(insert.error());
    QVector<SweepItem> items;
    for (const PlannedItem &one : planned) {
        for (int repeat = 0; repeat < std::max(1, repeats); ++repeat) {
            insert->bind(1, sweepId);
            insert->bind(2, qint64(position));
            insert->bind(3, qint64(one.mode.cores));
            insert->bind(4, one.mode.cpuKHz);
            insert->bind(5, one.mode.gpuHz);
            insert->bind(6, one.mode.emcHz);
            insert->bind(7, qint64(repeat));
            if (one.batchSize > 0)
                insert->bind(8, qint64(one.batchSize));
            else
                insert->bindNull(8);
            if (Status status = insert->run(); !status)
                return Result::failure(status.error());
            SweepItem item;
            item.position = position++;
            item.mode = one.mode;
            item.batchSize = one.batchSize;
            item.repeat = repeat;
            items.append(item);
        }
    }
    return items;
}

}  // namespace

QString sweepStateText(SweepState state)
{
    for (const auto &[value, text] : kSweepStates) {
        if (value == state)
            return QString::fromLatin1(text);
    }
    return {};
}

SweepState sweepStateFromText(const QString &text)
{
    for (const auto &[value, name] : kSweepStates) {
        if (text == QLatin1String(name))
            return value;
    }
    return SweepState::Interrupted;
}

QString SweepItem::stateText(State state)
{
    for (const auto &[value, text] : kItemStates) {
        if (value == state)
            return QString::fromLatin1(text);
    }
    return {};
}

SweepItem::State SweepItem::stateFromText(const QString &text)
{
    for (const auto &[value, name] : kItemStates) {
        if (text == QLatin1String(name))
            return value;
    }
    return State::Pending;
}

int SweepRecord::count(SweepItem::State state) const
{
    return int(std::count_if(items.cbegin(), items.cend(),
                             [state](const SweepItem &item) { return item.state == state; }));
}

Expected<qint64> SweepStore::create(const SweepPlan &plan,
                                    const QVector<PlannedItem> &explicitItems)
{
    using Result = Expected<qint64>;
    SqliteConnection &db = m_store.connection();
    Transaction transaction(db);
    if (!transaction.begun())
        return Result::failure(transaction.begun().error());
    const Expected<qint64> deviceId = m_store.ensureDevice(plan.device, plan.deviceKind);
    if (!deviceId)
        return passOn<Result>(deviceId);
    const Expected<qint64> workloadId = m_store.ensureWorkload(plan.workload);
    if (!workloadId)
        return passOn<Result>(workloadId);
    auto insert = db.prepare(QStringLiteral(
        "INSERT INTO sweeps (device_id, workload_id, plan, state, created_at, target, minibatches) "
        "VALUES (?1, ?2, ?3, 'planned', ?4, ?5, ?6)"));
    if (!insert)
        return Result::failure(insert.error());
    insert->bind(1, *deviceId);
    insert->bind(2, *workloadId);
    insert->bind(3, planJson(plan));
    insert->bind(4, utcNow());
    insert->bind(5, plan.target);
    insert->bind(6, qint64(plan.minibatches));
    if (Status status = insert->run(); !status)
        return Result::failure(status.error());
    const qint64 id = db.lastInsertRowId();
    Expected<QVector<SweepItem>> items = insertItems(
        db, id, 0, explicitItems.isEmpty() ? itemsOf(plan.modes, plan.batchSizes) : explicitItems,
        plan.repeats);
    if (!items)
        return Result::failure(items.error());
    if (Status status = transaction.commit(); !status)
        return Result::failure(status.error());
    return id;
}

Expected<SweepRecord> SweepStore::load(qint64 id)
{
    using Result = Expected<SweepRecord>;
    SqliteConnection &db = m_store.connection();
    auto select = db.prepare(QStringLiteral(
        "SELECT d.name, d.kind, w.name, s.plan, s.state, s.created_at, s.target, s.minibatches "
        "FROM sweeps s JOIN devices d ON d.id = s.device_id JOIN workloads w ON w.id = "
        "s.workload_id WHERE s.id = ?1"));
    if (!select)
        return Result::failure(select.error());
    select->bind(1, id);
    Expected<bool> row = select->step();
    if (!row)
        return Result::failure(row.error());
    if (!*row)
        return Result::failure(QStringLiteral("no sweep %1 in %2").arg(id).arg(m_store.path()),
                               ErrorKind::BadInput);
    SweepRecord record;
    record.id = id;
    record.plan.device = select->columnText(0);
    record.plan.deviceKind = select->columnText(1);
    record.plan.workload = select->columnText(2);
    const QJsonObject plan = QJsonDocument::fromJson(select->columnText(3).toUtf8()).object();
    record.plan.modeSet = plan.value(QLatin1String("mode_set")).toString();
    record.plan.run = plan.value(QLatin1String("run")).toString();
    record.plan.repeats = plan.value(QLatin1String("repeats")).toInt(1);
    record.plan.seed = plan.value(QLatin1String("seed")).toString().toULongLong();
    for (const QJsonValue &size : plan.value(QLatin1String("batch_sizes")).toArray())
        record.plan.batchSizes.append(size.toInt());
    record.state = sweepStateFromText(select->columnText(4));
    record.createdAt = select->columnText(5);
    record.plan.target = select->columnText(6);
    record.plan.minibatches = int(select->columnInt(7));

    auto items = db.prepare(QStringLiteral(
        "SELECT position, cores, cpu_khz, gpu_hz, emc_hz, repeat, state, reason, attempts, "
        "target, measurement_id, batch_size, output FROM sweep_modes WHERE sweep_id = ?1 ORDER BY "
        "position"));
    if (!items)
        return Result::failure(items.error());
    items->bind(1, id);
    while (true) {
        Expected<bool> next = items->step();
        if (!next)
            return Result::failure(next.error());
        if (!*next)
            break;
        SweepItem item;
        item.position = int(items->columnInt(0));
        item.mode = {int(items->columnInt(1)), items->columnInt(2), items->columnInt(3),
                     items->columnInt(4)};
        item.repeat = int(items->columnInt(5));
        item.state = SweepItem::stateFromText(items->columnText(6));
        item.reason = items->columnText(7);
        item.attempts = int(items->columnInt(8));
        item.target = items->columnText(9);
        item.measurementId = items->columnInt(10);
        item.batchSize = int(items->columnInt(11));  // NULL reads as 0: the run's own
        if (!items->columnIsNull(12)) {
            item.output = WorkloadOutput::fromJson(
                QJsonDocument::fromJson(items->columnText(12).toUtf8()).array(),
                kStoredOutputLines);
        }
        // a mode once, whatever its batch sizes and repeats (they follow one another)
        if (record.plan.modes.isEmpty() || record.items.back().mode != item.mode)
            record.plan.modes.append(item.mode);
        record.items.append(item);
    }
    return record;
}

Expected<QVector<SweepItem>> SweepStore::append(qint64 sweepId, const QVector<PowerMode> &modes,
                                                int repeats, const QVector<int> &batchSizes)
{
    return appendItems(sweepId, itemsOf(modes, batchSizes), repeats);
}

Expected<QVector<SweepItem>>
SweepStore::appendItems(qint64 sweepId, const QVector<PlannedItem> &planned, int repeats)
{
    using Result = Expected<QVector<SweepItem>>;
    SqliteConnection &db = m_store.connection();
    Transaction transaction(db);
    if (!transaction.begun())
        return Result::failure(transaction.begun().error());
    auto last = db.prepare(QStringLiteral(
        "SELECT coalesce(max(position) + 1, 0) FROM sweep_modes WHERE sweep_id = ?1"));
    if (!last)
        return Result::failure(last.error());
    last->bind(1, sweepId);
    Expected<bool> row = last->step();
    if (!row || !*row)
        return Result::failure(row ? QStringLiteral("no sweep %1").arg(sweepId) : row.error());
    const int position = int(last->columnInt(0));
    last->reset();
    Expected<QVector<SweepItem>> items = insertItems(db, sweepId, position, planned, repeats);
    if (!items)
        return items;
    if (Status status = transaction.commit(); !status)
        return Result::failure(status.error());
    return items;
}

Expected<qint64> SweepStore::latest(const QString &device, const QString &workload)
{
    auto select = m_store.connection().prepare(QStringLiteral(
        "SELECT s.id FROM sweeps s JOIN devices d ON d.id = s.device_id JOIN workloads w ON "
        "w.id = s.workload_id WHERE d.name = ?1 AND w.name = ?2 ORDER BY s.id DESC LIMIT 1"));
    if (!select)
        return Expected<qint64>::failure(select.error());
    select->bind(1, device);
    select->bind(2, workload);
    Expected<bool> row = select->step();
    if (!row)
        return Expected<qint64>::failure(row.error());
    if (!*row) {
        return Expected<qint64>::badInput(
            InputField::Resume,
            QStringLiteral("no sweep of workload '%1' on '%2' to resume").arg(workload, device));
    }
    return select->columnInt(0);
}

Status SweepStore::setState(qint64 id, SweepState state)
{
    auto update =
        m_store.connection().prepare(QStringLiteral("UPDATE sweeps SET state = ?1 WHERE id = ?2"));
    if (!update)
        return Status::failure(update.error());
    update->bind(1, sweepStateText(state));
    update->bind(2, id);
    return update->run();
}

Expected<qint64> SweepStore::recordDone(qint64 sweepId, int position, const Measurement &m,
                                        const QString &target)
{
    SqliteConnection &db = m_store.connection();
    Transaction transaction(db);
    if (!transaction.begun())
        return Expected<qint64>::failure(transaction.begun().error());
    // Claim the row first: only a pending one may become done.
    auto claim = db.prepare(QStringLiteral(
        "UPDATE sweep_modes SET state = 'done', attempts = attempts + 1, target = ?3, "
        "finished_at = ?4, reason = NULL WHERE sweep_id = ?1 AND position = ?2 AND state = "
        "'pending' AND cores = ?5 AND cpu_khz = ?6 AND gpu_hz = ?7 AND emc_hz = ?8 "
        "RETURNING (SELECT device_id FROM sweeps WHERE id = ?1), "
        "(SELECT workload_id FROM sweeps WHERE id = ?1)"));
    if (!claim)
        return Expected<qint64>::failure(claim.error());
    const QString now = utcNow();
    claim->bind(1, sweepId);
    claim->bind(2, qint64(position));
    claim->bind(3, target);
    claim->bind(4, now);
    claim->bind(5, qint64(m.mode.cores));
    claim->bind(6, m.mode.cpuKHz);
    claim->bind(7, m.mode.gpuHz);
    claim->bind(8, m.mode.emcHz);
    Expected<bool> claimed = claim->step();
    if (!claimed)
        return Expected<qint64>::failure(claimed.error());
    if (!*claimed) {
        return Expected<qint64>::failure(
            QStringLiteral("sweep %1, position %2 (%3): not pending any more")
                .arg(sweepId)
                .arg(position)
                .arg(m.mode.toCanonical()),
            ErrorKind::BadInput);
    }
    const qint64 deviceId = claim->columnInt(0);
    const qint64 workloadId = claim->columnInt(1);
    claim->reset();

    auto insert = db.prepare(Store::measurementInsertSql());
    if (!insert)
        return Expected<qint64>::failure(insert.error());
    Store::bindMeasurement(*insert, deviceId, workloadId, m, QStringLiteral("sweep"), now,
                           std::nullopt, sweepId);
    if (Status status = insert->run(); !status)
        return passOn<Expected<qint64>>(status);
    const qint64 measurementId = db.lastInsertRowId();
    auto link = db.prepare(QStringLiteral(
        "UPDATE sweep_modes SET measurement_id = ?3 WHERE sweep_id = ?1 AND position = ?2"));
    if (!link)
        return Expected<qint64>::failure(link.error());
    link->bind(1, sweepId);
    link->bind(2, qint64(position));
    link->bind(3, measurementId);
    if (Status status = link->run(); !status)
        return passOn<Expected<qint64>>(status);
    if (Status committed = transaction.commit(); !committed)
        return passOn<Expected<qint64>>(committed);
    return measurementId;
}

Status SweepStore::recordFailed(qint64 sweepId, int position, const QString &reason,
                                const QString &target, const QVector<WorkloadOutputLine> &output)
{
    auto update = m_store.connection().prepare(QStringLiteral(
        "UPDATE sweep_modes SET state = 'failed', reason = ?3, attempts = attempts + 1, "
        "target = ?4, finished_at = ?5, output = ?6 WHERE sweep_id = ?1 AND position = ?2 AND "
        "state = 'pending' RETURNING position"));
    if (!update)
        return Status::failure(update.error());
    update->bind(1, sweepId);
    update->bind(2, qint64(position));
    update->bind(3, reason);
    update->bind(4, target);
    update->bind(5, utcNow());
    if (output.isEmpty()) {
        update->bindNull(6);
    } else {
        // Sanitised here too: the store never holds a device's control characters.
        QVector<WorkloadOutputLine> kept =
            output.mid(std::max(0, int(output.size()) - kStoredOutputLines));
        for (WorkloadOutputLine &line : kept)
            line.text = WorkloadOutput::sanitisedText(line.text);
        update->bind(
            6,
            QString::fromUtf8(
                QJsonDocument(WorkloadOutput::toJson(kept)).toJson(QJsonDocument::Compact)));
    }
    Expected<bool> row = update->step();
    if (!row)
        return Status::failure(row.error());
    if (!*row)
        return Status::failure(QStringLiteral("sweep %1, position %2: not pending any more")
                                   .arg(sweepId)
                                   .arg(position),
                               ErrorKind::BadInput);
    return {};
}

}  // namespace ptwb
