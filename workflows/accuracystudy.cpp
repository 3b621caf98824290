#include "accuracystudy.h"

#include "predict/modelfit.h"
#include "store/store.h"

#include <QLocale>

namespace ptwb::workflows {

namespace {

QJsonObject quartiles(const Quartiles &q)
{
    return {{QStringLiteral("median"), q.median},
            {QStringLiteral("q1"), q.q1},
            {QStringLiteral("q3"), q.q3}};
}

// The JSON keys in the order the CLI prints them (QJsonObject sorts its keys).
const QStringList &rowKeys()
{
    static const QStringList keys {QStringLiteral("method"),    QStringLiteral("config"),
                                   QStringLiteral("samples"),   QStringLiteral("repeats"),
                                   QStringLiteral("time_mape"), QStringLiteral("power_mape"),
                                   QStringLiteral("seconds")};
    return keys;
}
const QStringList &quartileKeys()
{
    static const QStringList keys {QStringLiteral("median"), QStringLiteral("q1"),
                                   QStringLiteral("q3")};
    return keys;
}

QByteArray csvValue(const QJsonValue &value)
{
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', QLocale::FloatingPointShortest).toUtf8();
    return value.toString().toUtf8();  // method and config names: no commas or quotes
}

Expected<WorkloadData> load(Store &store, const QString &workload, const QString &device,
                            InputField field, const QString &what)
{
    if (workload.isEmpty())
        return Expected<WorkloadData>::badInput(
            field, QStringLiteral("expected the %1 workload, one of the store's").arg(what));
    Expected<WorkloadData> loaded = WorkloadData::load(store, workload, device);
    if (!loaded)
        return Expected<WorkloadData>::failure(loaded.error(), loaded.errorKind(), field);
    return loaded;
}

}  // namespace

Expected<QVector<AccuracyRow>> runAccuracyStudy(const AccuracyStudyRequest &request,
                                                const AccuracyStudyCallbacks &callbacks)
{
    using Result = Expected<QVector<AccuracyRow>>;
    Expected<std::unique_ptr<Store>> store = Store::open(request.databasePath);
    if (!store)
        return Result::failure(store.error(), store.errorKind(), InputField::Database);
    const Expected<WorkloadData> reference =
        load(**store, request.referenceWorkload, request.referenceDevice, InputField::Reference,
             QStringLiteral("reference"));
    if (!reference)
        return passOn<Result>(reference);
    const Expected<WorkloadData> target =
        load(**store, request.targetWorkload, request.targetDevice, InputField::Workload,
             QStringLiteral("target"));
    if (!target)
        return passOn<Result>(target);

    AccuracyBench bench(reference->data, target->data, target->kind, request.options);
    bench.setReferenceKind(reference->kind);
    bench.setProgress(callbacks.progress);
    if (callbacks.log && reference->kind != target->kind) {
        callbacks.log(QStringLiteral("across devices: reference measured on %1, target on %2")
                          .arg(reference->kind, target->kind));
    }
    return bench.run(callbacks.row, callbacks.log, callbacks.cancelled);
}

QJsonObject accuracyRowJson(const AccuracyRow &row)
{
    return {{QStringLiteral("method"), row.method},
            {QStringLiteral("config"), row.config},
            {QStringLiteral("samples"), row.samples},
            {QStringLiteral("repeats"), row.repeats},
            {QStringLiteral("time_mape"), quartiles(row.timeMape)},
            {QStringLiteral("power_mape"), quartiles(row.powerMape)},
            {QStringLiteral("seconds"), row.seconds}};
}

QByteArray accuracyRowsCsv(const QVector<AccuracyRow> &rows)
{
    const QJsonObject sample = accuracyRowJson({});
    QByteArrayList header;
    for (const QString &key : rowKeys()) {
        if (!sample.value(key).isObject()) {
            header.append(key.toUtf8());
            continue;
        }
        for (const QString &part : quartileKeys())
            header.append((key + QLatin1Char('_') + part).toUtf8());
    }
    QByteArray out = header.join(',') + '\n';
    for (const AccuracyRow &row : rows) {
        const QJsonObject json = accuracyRowJson(row);
        QByteArrayList cells;
        for (const QString &key : rowKeys()) {
            const QJsonValue value = json.value(key);
            if (!value.isObject()) {
                cells.append(csvValue(value));
                continue;
            }
            for (const QString &part : quartileKeys())
                cells.append(csvValue(value.toObject().value(part)));
        }
        out += cells.join(',') + '\n';
    }
    return out;
}

}  // namespace ptwb::workflows
