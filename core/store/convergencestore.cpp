#include "store/convergencestore.h"

#include "store/store.h"

namespace ptwb {

namespace {

const char kSelect[] = "SELECT w.name, c.batch_size, c.samples, c.target_accuracy, c.provenance, "
                       "c.source, c.recorded_at FROM convergence c JOIN workloads w ON w.id = "
                       "c.workload_id";

// Rows of kSelect ordered by workload and batch, one relation per workload. Each relation takes
// its provenance, source, time and accuracy from its first row: replace() writes them the same on
// every row.
Expected<QVector<ConvergenceRelation>> readRelations(SqliteStatement &select)
{
    using Result = Expected<QVector<ConvergenceRelation>>;
    QVector<ConvergenceRelation> relations;
    while (true) {
        Expected<bool> row = select.step();
        if (!row)
            return Result::failure(row.error());
        if (!*row)
            break;
        const QString workload = select.columnText(0);
        if (relations.isEmpty() || relations.back().workload != workload) {
            ConvergenceRelation relation;
            relation.workload = workload;
            relation.targetAccuracy = select.columnOptionalDouble(3);
            relation.provenance = select.columnText(4);
            relation.source = select.columnText(5);
            relation.recordedAt = select.columnText(6);
            relations.append(relation);
        }
        relations.back().points.append({int(select.columnInt(1)), select.columnDouble(2)});
    }
    return relations;
}

}  // namespace

Status ConvergenceStore::replace(const ConvergenceRelation &relation)
{
    if (const QString problem = relation.problem(); !problem.isEmpty()) {
        return Status::badInput(InputField::Workload,
                                QStringLiteral("%1: %2").arg(relation.workload, problem));
    }
    SqliteConnection &db = m_store.connection();
    Transaction transaction(db);
    if (!transaction.begun())
        return transaction.begun();
    const Expected<qint64> workloadId = m_store.ensureWorkload(relation.workload);
    if (!workloadId)
        return passOn<Status>(workloadId);
    auto remove = db.prepare(QStringLiteral("DELETE FROM convergence WHERE workload_id = ?1"));
    if (!remove)
        return passOn<Status>(remove);
    remove->bind(1, *workloadId);
    if (Status status = remove->run(); !status)
        return status;
    auto insert = db.prepare(QStringLiteral(
        "INSERT INTO convergence (workload_id, batch_size, samples, target_accuracy, provenance, "
        "source, recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    if (!insert)
        return passOn<Status>(insert);
    const QString recordedAt = relation.recordedAt.isEmpty() ? utcNow() : relation.recordedAt;
    for (const ConvergencePoint &point : relation.points) {
        insert->bind(1, *workloadId);
        insert->bind(2, qint64(point.batchSize));
        insert->bind(3, point.samples);
        insert->bind(4, relation.targetAccuracy);
        insert->bind(5, relation.provenance);
        insert->bind(6, relation.source);
        insert->bind(7, recordedAt);
        if (Status status = insert->run(); !status)
            return Status::failure(QStringLiteral("%1: cannot store the samples to accuracy at "
                                                  "batch size %2: %3")
                                       .arg(relation.workload)
                                       .arg(point.batchSize)
                                       .arg(status.error()));
    }
    return transaction.commit();
}

Expected<std::optional<ConvergenceRelation>> ConvergenceStore::load(const QString &workload)
{
    using Result = Expected<std::optional<ConvergenceRelation>>;
    auto select = m_store.connection().prepare(QLatin1String(kSelect) +
                                               QStringLiteral(" WHERE w.name = ?1 ORDER BY "
                                                              "c.batch_size"));
    if (!select)
        return passOn<Result>(select);
    select->bind(1, workload);
    Expected<QVector<ConvergenceRelation>> relations = readRelations(*select);
    if (!relations)
        return passOn<Result>(relations);
    if (relations->isEmpty())
        return Result(std::nullopt);
    return Result(relations->front());
}

Expected<QVector<ConvergenceRelation>> ConvergenceStore::all()
{
    auto select = m_store.connection().prepare(QLatin1String(kSelect) +
                                               QStringLiteral(" ORDER BY w.name, c.batch_size"));
    if (!select)
        return passOn<Expected<QVector<ConvergenceRelation>>>(select);
    return readRelations(*select);
}

}  // namespace ptwb
