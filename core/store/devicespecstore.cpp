#include "store/devicespecstore.h"

#include "store/store.h"

#include <algorithm>

namespace ptwb {

Expected<DeviceSpecStore::Seen>
DeviceSpecStore::recordSeen(const QString &device, const DeviceSpec &spec, const QString &family,
                            const QString &model, const QString &l4t)
{
    using Result = Expected<Seen>;
    if (device.isEmpty())
        return Result::badInput(InputField::None, QStringLiteral("a device spec needs a device"));
    const Expected<QVector<Entry>> before = history(device);
    if (!before)
        return passOn<Result>(before);
    SqliteConnection &db = m_store.connection();
    Transaction transaction(db);
    if (!transaction.begun())
        return passOn<Result>(transaction.begun());
    const QString now = utcNow();
    auto insertSpec = db.prepare(QStringLiteral(
        "INSERT OR IGNORE INTO device_specs (id, family, model, l4t, spec, first_seen) VALUES "
        "(?1, ?2, ?3, ?4, ?5, ?6)"));
    if (!insertSpec)
        return passOn<Result>(insertSpec);
    insertSpec->bind(1, spec.id());
    insertSpec->bind(2, family);
    insertSpec->bind(3, model);
    insertSpec->bind(4, l4t);
    insertSpec->bind(5, QString::fromUtf8(spec.toJson()));
    insertSpec->bind(6, now);
    if (Status status = insertSpec->run(); !status)
        return passOn<Result>(status, QStringLiteral("cannot store the spec %1").arg(spec.id()));
    auto seen = db.prepare(QStringLiteral(
        "INSERT INTO device_spec_history (device, spec_id, first_seen, last_seen, seen_order) "
        "VALUES (?1, ?2, ?3, ?3, (SELECT coalesce(max(seen_order), 0) + 1 FROM "
        "device_spec_history)) ON CONFLICT (device, spec_id) DO UPDATE SET last_seen = "
        "excluded.last_seen, seen_order = excluded.seen_order"));
    if (!seen)
        return passOn<Result>(seen);
    seen->bind(1, device);
    seen->bind(2, spec.id());
    seen->bind(3, now);
    if (Status status = seen->run(); !status)
        return passOn<Result>(status);
    if (Status committed = transaction.commit(); !committed)
        return passOn<Result>(committed);

    Seen out;
    out.specId = spec.id();
    out.firstTimeForDevice =
        std::none_of(before->cbegin(), before->cend(),
                     [&spec](const Entry &e) { return e.specId == spec.id(); });
    if (!before->isEmpty() && before->front().specId != spec.id()) {
        out.previousSpecId = before->front().specId;
        out.previousLastSeen = before->front().lastSeen;
    }
    return out;
}

Expected<DeviceSpec> DeviceSpecStore::load(const QString &specId)
{
    auto select =
        m_store.connection().prepare(QStringLiteral("SELECT spec FROM device_specs WHERE id = ?1"));
    if (!select)
        return passOn<Expected<DeviceSpec>>(select);
    select->bind(1, specId);
    const Expected<bool> row = select->step();
    if (!row)
        return passOn<Expected<DeviceSpec>>(row);
    if (!*row)
        return Expected<DeviceSpec>::badInput(
            InputField::None, QStringLiteral("no device spec '%1' in the store").arg(specId));
    return DeviceSpec::fromJson(select->columnText(0).toUtf8(),
                                QStringLiteral("the stored spec %1").arg(specId));
}

Status DeviceSpecStore::rememberAll()
{
    auto select = m_store.connection().prepare(QStringLiteral("SELECT id, spec FROM device_specs"));
    if (!select)
        return passOn<Status>(select);
    for (Expected<bool> row = select->step(); row && *row; row = select->step()) {
        // A stored spec that no longer reads is skipped: its device then asks again on connect.
        const Expected<DeviceSpec> spec =
            DeviceSpec::fromJson(select->columnText(1).toUtf8(),
                                 QStringLiteral("the stored spec %1").arg(select->columnText(0)));
        if (spec)
            DeviceSpec::remember(*spec);
    }
    return {};
}

Expected<QVector<DeviceSpecStore::Entry>> DeviceSpecStore::history(const QString &device)
{
    using Result = Expected<QVector<Entry>>;
    auto select = m_store.connection().prepare(QStringLiteral(
        "SELECT h.spec_id, s.family, s.model, s.l4t, h.first_seen, h.last_seen FROM "
        "device_spec_history h JOIN device_specs s ON s.id = h.spec_id WHERE h.device = ?1 "
        "ORDER BY h.seen_order DESC"));
    if (!select)
        return passOn<Result>(select);
    select->bind(1, device);
    QVector<Entry> out;
    while (true) {
        const Expected<bool> row = select->step();
        if (!row)
            return passOn<Result>(row);
        if (!*row)
            break;
        out.append({select->columnText(0), select->columnText(1), select->columnText(2),
                    select->columnText(3), select->columnText(4), select->columnText(5)});
    }
    return out;
}

}  // namespace ptwb
