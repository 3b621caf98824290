#include "store/workloadlibrary.h"

#include "store/store.h"

#include <QJsonDocument>

namespace ptwb {

namespace {

const char kSelect[] = "SELECT name, definition, created_at, updated_at FROM workload_definitions";

Expected<QVector<WorkloadDefinition>> readDefinitions(SqliteStatement &select)
{
    using Result = Expected<QVector<WorkloadDefinition>>;
    QVector<WorkloadDefinition> out;
    while (true) {
        Expected<bool> row = select.step();
        if (!row)
            return Result::failure(row.error());
        if (!*row)
            break;
        const QString name = select.columnText(0);
        QJsonParseError error;
        const QJsonDocument json = QJsonDocument::fromJson(select.columnText(1).toUtf8(), &error);
        if (!json.isObject()) {
            return Result::failure(QStringLiteral("stored workload definition %1: not a JSON "
                                                  "object (%2)")
                                       .arg(name, error.errorString()));
        }
        Expected<WorkloadDefinition> definition = WorkloadDefinition::fromJson(json.object(), name);
        if (!definition) {
            return Result::failure(
                QStringLiteral("stored workload definition: %1").arg(definition.error()));
        }
        definition->createdAt = select.columnText(2);
        definition->updatedAt = select.columnText(3);
        out.append(*definition);
    }
    return out;
}

QString definitionText(const WorkloadDefinition &definition)
{
    return QString::fromUtf8(QJsonDocument(definition.toJson()).toJson(QJsonDocument::Compact));
}

Status notFound(const QString &name)
{
    return Status::badInput(InputField::Workload,
                            QStringLiteral("no saved workload definition named '%1'").arg(name));
}

}  // namespace

Expected<QVector<WorkloadDefinition>> WorkloadLibrary::all()
{
    auto select =
        m_store.connection().prepare(QLatin1String(kSelect) + QStringLiteral(" ORDER BY name"));
    if (!select)
        return passOn<Expected<QVector<WorkloadDefinition>>>(select);
    return readDefinitions(*select);
}

Expected<std::optional<WorkloadDefinition>> WorkloadLibrary::find(const QString &name)
{
    using Result = Expected<std::optional<WorkloadDefinition>>;
    auto select =
        m_store.connection().prepare(QLatin1String(kSelect) + QStringLiteral(" WHERE name = ?1"));
    if (!select)
        return passOn<Result>(select);
    select->bind(1, name);
    Expected<QVector<WorkloadDefinition>> found = readDefinitions(*select);
    if (!found)
        return passOn<Result>(found);
    if (found->isEmpty())
        return Result(std::nullopt);
    return Result(found->front());
}

Expected<bool> WorkloadLibrary::exists(const QString &name)
{
    auto select = m_store.connection().prepare(
        QStringLiteral("SELECT 1 FROM workload_definitions WHERE name = ?1"));
    if (!select)
        return passOn<Expected<bool>>(select);
    select->bind(1, name);
    return select->step();
}

Status WorkloadLibrary::checkStorable(const WorkloadDefinition &definition)
{
    if (const QString problem = definition.problem(); !problem.isEmpty())
        return Status::badInput(InputField::Workload,
                                QStringLiteral("workload %1: %2").arg(definition.name, problem));
    return {};
}

Status WorkloadLibrary::add(const WorkloadDefinition &definition)
{
    if (Status ok = checkStorable(definition); !ok)
        return ok;
    const Expected<bool> taken = exists(definition.name);
    if (!taken)
        return passOn<Status>(taken);
    if (*taken) {
        return Status::badInput(InputField::Workload,
                                QStringLiteral("a workload definition named '%1' exists already; "
                                               "choose another name or replace it")
                                    .arg(definition.name));
    }
    auto insert = m_store.connection().prepare(
        QStringLiteral("INSERT INTO workload_definitions (name, device_kind, definition, "
                       "created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)"));
    if (!insert)
        return passOn<Status>(insert);
    insert->bind(1, definition.name);
    if (definition.deviceKind.isEmpty())
        insert->bindNull(2);
    else
        insert->bind(2, definition.deviceKind);
    insert->bind(3, definitionText(definition));
    insert->bind(4, utcNow());
    return insert->run();
}

Status WorkloadLibrary::update(const QString &oldName, const WorkloadDefinition &definition)
{
    if (Status ok = checkStorable(definition); !ok)
        return ok;
    SqliteConnection &db = m_store.connection();
    Transaction transaction(db);
    if (!transaction.begun())
        return transaction.begun();
    const Expected<bool> old = exists(oldName);
    if (!old)
        return passOn<Status>(old);
    if (!*old)
        return notFound(oldName);
    if (definition.name != oldName) {
        const Expected<bool> taken = exists(definition.name);
        if (!taken)
            return passOn<Status>(taken);
        if (*taken) {
            return Status::badInput(InputField::Workload,
                                    QStringLiteral("cannot rename '%1' to '%2': a workload "
                                                   "definition of that name exists already")
                                        .arg(oldName, definition.name));
        }
    }
    auto change = db.prepare(
        QStringLiteral("UPDATE workload_definitions SET name = ?2, device_kind = ?3, definition "
                       "= ?4, updated_at = ?5 WHERE name = ?1"));
    if (!change)
        return passOn<Status>(change);
    change->bind(1, oldName);
    change->bind(2, definition.name);
    if (definition.deviceKind.isEmpty())
        change->bindNull(3);
    else
        change->bind(3, definition.deviceKind);
    change->bind(4, definitionText(definition));
    change->bind(5, utcNow());
    if (Status status = change->run(); !status)
        return status;
    return transaction.commit();
}

Status WorkloadLibrary::remove(const QString &name)
{
    auto remove = m_store.connection().prepare(
        QStringLiteral("DELETE FROM workload_definitions WHERE name = ?1 RETURNING id"));
    if (!remove)
        return passOn<Status>(remove);
    remove->bind(1, name);
    const Expected<bool> removed = remove->step();
    if (!removed)
        return passOn<Status>(removed);
    if (!*removed)
        return notFound(name);
    remove->reset();
    return {};
}

Expected<WorkloadDefinition> WorkloadLibrary::duplicate(const QString &name)
{
    using Result = Expected<WorkloadDefinition>;
    const Expected<std::optional<WorkloadDefinition>> found = find(name);
    if (!found)
        return passOn<Result>(found);
    if (!found->has_value())
        return passOn<Result>(notFound(name));
    WorkloadDefinition copy = **found;
    // Names are at most 64 characters: the base is cut to leave room for the suffix.
    for (int n = 1; n < 1000; ++n) {
        const QString suffix = n == 1 ? QStringLiteral("-copy") : QStringLiteral("-copy-%1").arg(n);
        copy.name = name.left(64 - int(suffix.size())) + suffix;
        const Expected<bool> taken = exists(copy.name);
        if (!taken)
            return passOn<Result>(taken);
        if (*taken)
            continue;
        if (Status added = add(copy); !added)
            return passOn<Result>(added);
        const Expected<std::optional<WorkloadDefinition>> stored = find(copy.name);
        if (!stored)
            return passOn<Result>(stored);
        return Result(**stored);
    }
    return Result::failure(
        QStringLiteral("workload %1: too many copies already; rename one").arg(name));
}

}  // namespace ptwb
