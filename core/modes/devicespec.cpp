#include "modes/devicespec.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QMutex>

#include <algorithm>

namespace ptwb {

namespace {

// Device JSON is small and read rarely; this helper keeps every error naming file and field.
class JsonReader
{
public:
    explicit JsonReader(QString sourceName)
        : m_source(std::move(sourceName))
    {
    }

    bool failed() const { return !m_error.isEmpty(); }
    const QString &error() const { return m_error; }

    void fail(const QString &field, const QString &what)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1: field '%2': %3").arg(m_source, field, what);
    }

    QString string(const QJsonObject &object, const QString &field, bool required = true)
    {
        const QJsonValue value = object.value(field);
        if (value.isUndefined() && !required)
            return {};
        if (!value.isString() || value.toString().isEmpty()) {
            fail(field, QStringLiteral("expected a non-empty string"));
            return {};
        }
        return value.toString();
    }

    qint64 positive(const QJsonObject &object, const QString &field, const QString &path)
    {
        const QJsonValue value = object.value(field);
        const double number = value.toDouble(-1);
        if (!value.isDouble() || number <= 0 || number != static_cast<double>(qint64(number))) {
            fail(path, QStringLiteral("expected a positive whole number"));
            return 0;
        }
        return static_cast<qint64>(number);
    }

    QVector<qint64> ascendingList(const QJsonObject &object, const QString &field)
    {
        const QJsonValue value = object.value(field);
        if (!value.isArray() || value.toArray().isEmpty()) {
            fail(field, QStringLiteral("expected a non-empty array of frequencies"));
            return {};
        }
        QVector<qint64> out;
        const QJsonArray array = value.toArray();
        for (int i = 0; i < array.size(); ++i) {
            const double number = array[i].toDouble(-1);
            const QString path = QStringLiteral("%1[%2]").arg(field).arg(i);
            if (!array[i].isDouble() || number <= 0 ||
                number != static_cast<double>(qint64(number))) {
                fail(path, QStringLiteral("expected a positive whole number"));
                return {};
            }
            if (!out.isEmpty() && qint64(number) <= out.back()) {
                fail(path, QStringLiteral("values must be strictly ascending"));
                return {};
            }
            out.append(qint64(number));
        }
        return out;
    }

private:
    QString m_source;
    QString m_error;
};

}  // namespace

Expected<DeviceSpec> DeviceSpec::fromJson(const QByteArray &json, const QString &sourceName)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        return Expected<DeviceSpec>::failure(QStringLiteral("%1: not a JSON object (%2 at byte %3)")
                                                 .arg(sourceName, parseError.errorString())
                                                 .arg(parseError.offset));
    }
    const QJsonObject root = document.object();
    JsonReader reader(sourceName);
    DeviceSpec spec;
    spec.m_id = reader.string(root, QStringLiteral("id"));
    spec.m_name = reader.string(root, QStringLiteral("name"));
    spec.m_source = reader.string(root, QStringLiteral("source"), false);
    spec.m_socFamily = reader.string(root, QStringLiteral("soc_family"), false);
    spec.m_family = reader.string(root, QStringLiteral("family"), false);

    const QJsonObject cores = root.value(QStringLiteral("cores")).toObject();
    const qint64 minCores =
        reader.positive(cores, QStringLiteral("min"), QStringLiteral("cores.min"));
    const qint64 maxCores =
        reader.positive(cores, QStringLiteral("max"), QStringLiteral("cores.max"));
    if (!reader.failed() && maxCores < minCores)
        reader.fail(QStringLiteral("cores.max"), QStringLiteral("must not be below cores.min"));
    for (qint64 c = minCores; !reader.failed() && c <= maxCores; ++c)
        spec.m_values[0].append(c);
    spec.m_values[1] = reader.ascendingList(root, QStringLiteral("cpu_khz"));
    spec.m_values[2] = reader.ascendingList(root, QStringLiteral("gpu_hz"));
    spec.m_values[3] = reader.ascendingList(root, QStringLiteral("emc_hz"));

    const QJsonArray presets = root.value(QStringLiteral("presets")).toArray();
    for (int i = 0; i < presets.size() && !reader.failed(); ++i) {
        const QJsonObject object = presets[i].toObject();
        const QString path = QStringLiteral("presets[%1].").arg(i);
        Preset preset;
        preset.name = reader.string(object, QStringLiteral("name"));
        preset.id = static_cast<int>(object.value(QStringLiteral("id")).toInt(-1));
        if (preset.id < 0)
            reader.fail(path + QStringLiteral("id"),
                        QStringLiteral("expected a whole number >= 0"));
        preset.cores = static_cast<int>(
            reader.positive(object, QStringLiteral("cores"), path + QStringLiteral("cores")));
        preset.cpuMaxKHz = reader.positive(object, QStringLiteral("cpu_max_khz"),
                                           path + QStringLiteral("cpu_max_khz"));
        preset.gpuMaxHz = reader.positive(object, QStringLiteral("gpu_max_hz"),
                                          path + QStringLiteral("gpu_max_hz"));
        preset.emcMaxHz = reader.positive(object, QStringLiteral("emc_max_hz"),
                                          path + QStringLiteral("emc_max_hz"));
        spec.m_presets.append(preset);
    }
    spec.m_defaultPreset = reader.string(root, QStringLiteral("default_preset"), false);
    if (!spec.m_defaultPreset.isEmpty() && !reader.failed() && !spec.preset(spec.m_defaultPreset))
        reader.fail(QStringLiteral("default_preset"),
                    QStringLiteral("names no preset in 'presets'"));
    const QJsonArray rails = root.value(QStringLiteral("power_rails")).toArray();
    for (const QJsonValue &rail : rails)
        spec.m_powerRails.append(rail.toString());

    if (reader.failed())
        return Expected<DeviceSpec>::failure(reader.error());
    return spec;
}

QStringList DeviceSpec::builtinIds()
{
    QStringList ids;
    const QStringList files =
        QDir(QStringLiteral(":/devices")).entryList({QStringLiteral("*.json")}, QDir::Files);
    for (const QString &file : files)
        ids.append(file.chopped(5));
    // Sorted by id, not by file name: "orin-nano.json" sorts after "orin-nano-super.json".
    ids.sort();
    return ids;
}

Expected<DeviceSpec> DeviceSpec::builtin(const QString &id)
{
    QFile file(QStringLiteral(":/devices/%1.json").arg(id));
    if (!file.open(QIODevice::ReadOnly)) {
        return Expected<DeviceSpec>::failure(
            QStringLiteral("unknown device '%1'; expected one of: %2")
                .arg(id, builtinIds().join(QStringLiteral(", "))));
    }
    return fromJson(file.readAll(), QStringLiteral("%1.json").arg(id));
}

namespace {

// The specs connected devices reported, by id (DeviceSpec::remember). Bounded: a device that
// reported ever new tables would otherwise grow it without end.
constexpr int kMaxRememberedSpecs = 256;
QMutex rememberedLock;
QHash<QString, DeviceSpec> &remembered()
{
    static QHash<QString, DeviceSpec> specs;
    return specs;
}

}  // namespace

Expected<DeviceSpec> DeviceSpec::lookup(const QString &kind)
{
    {
        const QMutexLocker locker(&rememberedLock);
        const auto found = remembered().constFind(kind);
        if (found != remembered().cend())
            return *found;
    }
    if (builtinIds().contains(kind))
        return builtin(kind);
    return Expected<DeviceSpec>::failure(
        QStringLiteral("unknown device kind '%1'; expected one of: %2, or the spec id of a "
                       "device the open store has seen")
            .arg(kind, builtinIds().join(QStringLiteral(", "))));
}

void DeviceSpec::remember(const DeviceSpec &spec)
{
    if (builtinIds().contains(spec.id()))
        return;  // a built-in id names the built-in table, always
    const QMutexLocker locker(&rememberedLock);
    if (remembered().size() >= kMaxRememberedSpecs && !remembered().contains(spec.id()))
        return;
    remembered().insert(spec.id(), spec);
}

bool DeviceSpec::sameTables(const DeviceSpec &other) const
{
    for (int i = 0; i < kDimensionCount; ++i) {
        if (m_values[i] != other.m_values[i])
            return false;
    }
    if (m_presets.size() != other.m_presets.size())
        return false;
    // A cap is compared by what it allows: the fastest table value under it. nvpmodel.conf may
    // cap the GPU at 408 MHz where the table steps from 318.75 to 420.75 MHz; the agent reports
    // the 318.75 MHz that takes effect.
    const auto effective = [this](Dimension dimension, qint64 cap) {
        const QVector<qint64> &table = values(dimension);
        const auto above = std::upper_bound(table.cbegin(), table.cend(), cap);
        return above == table.cbegin() ? table.front() : *(above - 1);
    };
    const auto sameCaps = [&effective](const Preset &a, const Preset &b) {
        return a.cores == b.cores &&
            effective(Dimension::Cpu, a.cpuMaxKHz) == effective(Dimension::Cpu, b.cpuMaxKHz) &&
            effective(Dimension::Gpu, a.gpuMaxHz) == effective(Dimension::Gpu, b.gpuMaxHz) &&
            effective(Dimension::Emc, a.emcMaxHz) == effective(Dimension::Emc, b.emcMaxHz);
    };
    for (const Preset &mine : m_presets) {
        const Preset *theirs = other.preset(mine.name);
        if (!theirs || !sameCaps(mine, *theirs))
            return false;
    }
    return true;
}

const Preset *DeviceSpec::preset(const QString &name) const
{
    for (const Preset &preset : m_presets) {
        if (preset.name.compare(name, Qt::CaseInsensitive) == 0)
            return &preset;
    }
    return nullptr;
}

QByteArray DeviceSpec::toJson() const
{
    const auto list = [](const QVector<qint64> &values) {
        QJsonArray out;
        for (const qint64 value : values)
            out.append(double(value));
        return out;
    };
    QJsonObject root {
        {QStringLiteral("id"), m_id},
        {QStringLiteral("name"), m_name},
        {QStringLiteral("cores"),
         QJsonObject {{QStringLiteral("min"), minCores()}, {QStringLiteral("max"), maxCores()}}},
        {QStringLiteral("cpu_khz"), list(m_values[1])},
        {QStringLiteral("gpu_hz"), list(m_values[2])},
        {QStringLiteral("emc_hz"), list(m_values[3])},
        {QStringLiteral("power_rails"), QJsonArray::fromStringList(m_powerRails)}};
    if (!m_source.isEmpty())
        root.insert(QStringLiteral("source"), m_source);
    if (!m_socFamily.isEmpty())
        root.insert(QStringLiteral("soc_family"), m_socFamily);
    if (!m_family.isEmpty())
        root.insert(QStringLiteral("family"), m_family);
    if (!m_defaultPreset.isEmpty())
        root.insert(QStringLiteral("default_preset"), m_defaultPreset);
    QJsonArray presets;
    for (const Preset &p : m_presets) {
        presets.append(QJsonObject {{QStringLiteral("name"), p.name},
                                    {QStringLiteral("id"), p.id},
                                    {QStringLiteral("cores"), p.cores},
                                    {QStringLiteral("cpu_max_khz"), double(p.cpuMaxKHz)},
                                    {QStringLiteral("gpu_max_hz"), double(p.gpuMaxHz)},
                                    {QStringLiteral("emc_max_hz"), double(p.emcMaxHz)}});
    }
    root.insert(QStringLiteral("presets"), presets);
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

QString DeviceSpec::summary() const
{
    qint64 modes = 1;
    for (const QVector<qint64> &values : m_values)
        modes *= values.size();
    QStringList presets;
    for (const Preset &preset : m_presets)
        presets.append(preset.name);
    return QStringLiteral("%1 modes (%2 core counts × %3 CPU × %4 GPU × %5 memory clocks); %6")
        .arg(QLocale(QLocale::English).toString(modes))
        .arg(m_values[0].size())
        .arg(m_values[1].size())
        .arg(m_values[2].size())
        .arg(m_values[3].size())
        .arg(presets.isEmpty() ? QStringLiteral("no presets")
                               : QStringLiteral("presets ") + presets.join(QStringLiteral(", ")));
}

PowerMode DeviceSpec::maxMode() const
{
    PowerMode mode;
    for (Dimension dimension : kAllDimensions)
        mode.setValue(dimension, values(dimension).back());
    return mode;
}

}  // namespace ptwb
