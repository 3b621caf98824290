#include "modes/devicereport.h"

#include "modes/jetsonfamily.h"
#include "util/printable.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace ptwb {

namespace {

QJsonArray ascending(QVector<qint64> values)
{
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    QJsonArray out;
    for (const qint64 value : values)
        out.append(double(value));
    return out;
}

}  // namespace

Expected<DeviceSpec> deviceSpecFromReport(const DeviceReport &report)
{
    using Result = Expected<DeviceSpec>;
    const qint64 gpuTop =
        report.gpuHz.isEmpty() ? 0 : *std::max_element(report.gpuHz.cbegin(), report.gpuHz.cend());
    const Expected<JetsonFamily> family = jetsonFamilyOf(report.model, gpuTop);
    if (!family)
        return passOn<Result>(family);
    QStringList missing;
    if (report.maxCores < 1)
        missing << QStringLiteral("its CPU cores");
    if (report.cpuKHz.isEmpty())
        missing << QStringLiteral("its CPU frequencies");
    if (report.gpuHz.isEmpty())
        missing << QStringLiteral("its GPU frequencies");
    if (report.emcHz.isEmpty() && report.currentEmcHz <= 0)
        missing << QStringLiteral("its memory (EMC) clock");
    if (!missing.isEmpty())
        return Result::failure(
            QStringLiteral("%1 (%2): the workbench cannot drive it: it does "
                           "not report %3")
                .arg(family->name, report.model, missing.join(QStringLiteral(", "))));

    QJsonObject root;
    root.insert(QStringLiteral("name"), printable(report.model, 256));  // device text, shown
    root.insert(QStringLiteral("soc_family"), family->socFamily);
    root.insert(QStringLiteral("family"), family->id);
    root.insert(QStringLiteral("cores"),
                QJsonObject {{QStringLiteral("min"), 1}, {QStringLiteral("max"), report.maxCores}});
    root.insert(QStringLiteral("cpu_khz"), ascending(report.cpuKHz));
    root.insert(QStringLiteral("gpu_hz"), ascending(report.gpuHz));
    const bool emcFixed = report.emcHz.isEmpty();
    root.insert(QStringLiteral("emc_hz"),
                ascending(emcFixed ? QVector<qint64> {report.currentEmcHz} : report.emcHz));
    QJsonArray presets;
    for (const DeviceReport::ReportedPreset &preset : report.presets) {
        if (!preset.caps)
            continue;
        presets.append(QJsonObject {{QStringLiteral("name"), preset.name},
                                    {QStringLiteral("id"), preset.id},
                                    {QStringLiteral("cores"), preset.caps->cores},
                                    {QStringLiteral("cpu_max_khz"), double(preset.caps->cpuMaxKHz)},
                                    {QStringLiteral("gpu_max_hz"), double(preset.caps->gpuMaxHz)},
                                    {QStringLiteral("emc_max_hz"), double(preset.caps->emcMaxHz)}});
    }
    root.insert(QStringLiteral("presets"), presets);
    root.insert(QStringLiteral("power_rails"), QJsonArray::fromStringList(report.rails));

    // The id: the family and a hash of what decides the mode space and its baselines, so the
    // same tables give the same id, other tables another. The preset in force is no part of it:
    // changing it with nvpmodel does not make another device.
    QJsonObject tables = root;
    tables.remove(QStringLiteral("name"));
    for (const QJsonValue &preset : std::as_const(presets)) {
        if (preset.toObject().value(QStringLiteral("name")).toString() == report.currentPreset)
            root.insert(QStringLiteral("default_preset"), report.currentPreset);
    }
    const QByteArray digest = QCryptographicHash::hash(
        QJsonDocument(tables).toJson(QJsonDocument::Compact), QCryptographicHash::Sha256);
    root.insert(
        QStringLiteral("id"),
        QStringLiteral("%1-%2").arg(family->id, QString::fromLatin1(digest.toHex().left(12))));
    root.insert(QStringLiteral("source"),
                QStringLiteral("reported by the device (L4T %1)%2")
                    .arg(report.l4t.isEmpty() ? QStringLiteral("unknown") : report.l4t,
                         emcFixed ? QStringLiteral("; EMC is not controllable there: fixed at "
                                                   "its current clock")
                                  : QString()));
    return DeviceSpec::fromJson(
        QJsonDocument(root).toJson(QJsonDocument::Compact),
        QStringLiteral("the tables %1 reported").arg(printable(report.model, 120)));
}

DeviceKind deviceKindOf(const DeviceReport &report, const QString &reportedKind)
{
    DeviceKind out;
    const Expected<DeviceSpec> spec = deviceSpecFromReport(report);
    if (!spec) {
        // Tables are what a spec is built from; an agent that sent none (an older one) keeps
        // the built-in table of the kind it named. Anything else it cannot drive.
        const bool noTables = report.cpuKHz.isEmpty() && report.gpuHz.isEmpty();
        if (noTables && DeviceSpec::builtinIds().contains(reportedKind))
            out.kind = reportedKind;
        else
            out.problem = spec.error();
        return out;
    }
    const Expected<DeviceSpec> builtin = DeviceSpec::builtin(spec->family());
    out.matchesBuiltin = builtin && builtin->sameTables(*spec);
    out.kind = out.matchesBuiltin ? spec->family() : spec->id();
    out.spec = *spec;
    DeviceSpec::remember(*spec);
    return out;
}

}  // namespace ptwb
