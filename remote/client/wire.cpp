#include "wire.h"

#include "modes/jetsonfamily.h"
#include "store/workloaddefinition.h"

#include <QJsonArray>
#include <QJsonValue>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptwb {

namespace {

// A thermal zone's reading in °C, else it is not one (DeviceInfo::hottestC skips it).
constexpr double kMinZoneC = -60;
constexpr double kMaxZoneC = 250;

template<typename T>
Expected<T> missing(const QString &field, const QString &expected)
{
    return Expected<T>::failure(
        QStringLiteral("agent reply: field '%1': expected %2").arg(field, expected));
}

// JSON numbers are doubles: integral values up to 2^53 are exact, which covers every clock.
bool integral(const QJsonValue &value, qint64 *out)
{
    if (!value.isDouble())
        return false;
    const double d = value.toDouble();
    if (d != double(qint64(d)))
        return false;
    *out = qint64(d);
    return true;
}

template<typename T>
Expected<QVector<T>> integers(const QJsonObject &object, const QString &key, const QString &field)
{
    const QJsonValue value = object.value(key);
    if (!value.isArray() || value.toArray().isEmpty())
        return missing<QVector<T>>(field, QStringLiteral("a non-empty list of integers"));
    QVector<T> out;
    for (const QJsonValue &item : value.toArray()) {
        qint64 number = 0;
        // Never narrowed: 2^32 + 4 is no count of 4 cores.
        if (!integral(item, &number) || number <= 0 || number > std::numeric_limits<T>::max())
            return missing<QVector<T>>(field, QStringLiteral("a list of positive integers"));
        out.append(T(number));
    }
    return out;
}

Expected<Quartiles3> quartiles(const QJsonObject &object, const QString &key)
{
    const QJsonObject q = object.value(key).toObject();
    for (const char *part : {"median", "q1", "q3"}) {
        if (!q.value(QLatin1String(part)).isDouble())
            return missing<Quartiles3>(QStringLiteral("%1.%2").arg(key, QLatin1String(part)),
                                       QStringLiteral("a number"));
    }
    return Quartiles3 {q.value(QLatin1String("median")).toDouble(),
                       q.value(QLatin1String("q1")).toDouble(),
                       q.value(QLatin1String("q3")).toDouble()};
}

// A command's env, recognise, skip and timeout_s (all optional).
Status readRecognition(const QJsonObject &object, WorkloadSpec *spec)
{
    const auto bad = [](const QString &field, const QString &expected) {
        return Status::failure(
            QStringLiteral("workload: field '%1': expected %2").arg(field, expected));
    };
    const QJsonValue env = object.value(QLatin1String("env"));
    if (!env.isUndefined() && !env.isNull()) {
        if (!env.isObject())
            return bad(QStringLiteral("workload.env"), QStringLiteral("an object of strings"));
        const QJsonObject variables = env.toObject();
        for (auto it = variables.begin(); it != variables.end(); ++it) {
            if (!it.value().isString())
                return bad(QStringLiteral("workload.env.%1").arg(it.key()),
                           QStringLiteral("a string"));
            spec->environment.append({it.key(), it.value().toString()});
        }
    }
    const QJsonValue recognise = object.value(QLatin1String("recognise"));
    if (!recognise.isUndefined() && !recognise.isNull()) {
        const QJsonObject by = recognise.toObject();
        spec->recogniser = by.value(QLatin1String("by")).toString();
        WorkloadDefinition::Recogniser recogniser;
        if (!WorkloadRecognisers::fromName(spec->recogniser, &recogniser))
            return bad(QStringLiteral("workload.recognise.by"),
                       QStringLiteral("marker, regex or launcher"));
        if (recogniser == WorkloadDefinition::Recogniser::Regex) {
            spec->pattern = by.value(QLatin1String("pattern")).toString();
            spec->unit = by.value(QLatin1String("unit")).toString();
            if (spec->pattern.isEmpty())
                return bad(QStringLiteral("workload.recognise.pattern"),
                           QStringLiteral("a regular expression"));
            WorkloadDefinition::RateUnit unit;
            if (!WorkloadRecognisers::unitFromName(spec->unit, &unit))
                return bad(QStringLiteral("workload.recognise.unit"),
                           QStringLiteral("ms, s or per_s"));
        }
    }
    qint64 number = 0;
    if (object.contains(QLatin1String("skip"))) {
        if (!integral(object.value(QLatin1String("skip")), &number) || number < 0 ||
            number > WorkloadDefinition::kMaxMinibatches)
            return bad(
                QStringLiteral("workload.skip"),
                QStringLiteral("0 to %1 minibatches").arg(WorkloadDefinition::kMaxMinibatches));
        spec->skip = int(number);
    }
    if (object.contains(QLatin1String("timeout_s"))) {
        if (!integral(object.value(QLatin1String("timeout_s")), &number) || number < 1 ||
            number > WorkloadDefinition::kMaxTimeoutSeconds)
            return bad(
                QStringLiteral("workload.timeout_s"),
                QStringLiteral("1 to %1 seconds").arg(WorkloadDefinition::kMaxTimeoutSeconds));
        spec->timeoutSeconds = int(number);
    }
    return {};
}

}  // namespace

QJsonObject modeToJson(const PowerMode &mode)
{
    return {{QStringLiteral("cores"), mode.cores},
            {QStringLiteral("cpu_khz"), double(mode.cpuKHz)},
            {QStringLiteral("gpu_hz"), double(mode.gpuHz)},
            {QStringLiteral("emc_hz"), double(mode.emcHz)}};
}

Expected<PowerMode> modeFromJson(const QJsonObject &object, const QString &field)
{
    PowerMode mode;
    const char *keys[] = {"cores", "cpu_khz", "gpu_hz", "emc_hz"};
    qint64 values[4] = {};
    for (int i = 0; i < 4; ++i) {
        if (!integral(object.value(QLatin1String(keys[i])), &values[i]) || values[i] <= 0)
            return missing<PowerMode>(QStringLiteral("%1.%2").arg(field, QLatin1String(keys[i])),
                                      QStringLiteral("a positive integer"));
    }
    // A core count is never narrowed to an int: 2^32 + 12 is no count of 12.
    if (values[0] > kMaxWireCores)
        return missing<PowerMode>(QStringLiteral("%1.cores").arg(field),
                                  QStringLiteral("at most %1 cores").arg(kMaxWireCores));
    mode.cores = int(values[0]);
    mode.cpuKHz = values[1];
    mode.gpuHz = values[2];
    mode.emcHz = values[3];
    return mode;
}

Expected<DeviceInfo> DeviceInfo::fromJson(const QJsonObject &result)
{
    DeviceInfo info;
    for (const char *key : {"agent_version", "model", "boot_id"}) {
        if (!result.value(QLatin1String(key)).isString())
            return missing<DeviceInfo>(QLatin1String(key), QStringLiteral("a string"));
    }
    info.agentVersion = result.value(QLatin1String("agent_version")).toString();
    // The model and release are stored with the device's spec and shown: bounded here.
    info.model = result.value(QLatin1String("model")).toString().left(kMaxModelChars);
    info.bootId = result.value(QLatin1String("boot_id")).toString();
    info.reportedKind = result.value(QLatin1String("device")).toString().left(64);  // null: unknown
    info.l4t = result.value(QLatin1String("l4t")).toString().left(kMaxL4tChars);
    info.simulated = result.value(QLatin1String("simulated")).toBool();
    if (result.value(QLatin1String("mode_changes")).isString())
        info.modeChanges = result.value(QLatin1String("mode_changes")).toString();
    const QJsonObject helper = result.value(QLatin1String("helper")).toObject();
    if (helper.value(QLatin1String("state")).isString()) {
        info.helperState = helper.value(QLatin1String("state")).toString().left(32);
        info.helperMessage = helper.value(QLatin1String("message")).toString().left(1000);
    }
    const QJsonObject revert = result.value(QLatin1String("revert")).toObject();
    if (revert.value(QLatin1String("token")).isString()) {
        DeviceInfo::ArmedRevert armed;
        armed.token = revert.value(QLatin1String("token")).toString().left(64);
        armed.byReboot = revert.value(QLatin1String("by_reboot")).toBool();
        const double left = revert.value(QLatin1String("seconds_left")).toDouble();
        armed.secondsLeft = std::isfinite(left) ? qBound(0.0, left, 86400.0) : 0.0;
        info.revert = armed;
    }
    const QJsonObject tables = result.value(QLatin1String("tables")).toObject();
    // A host with no GPU table that is no Jetson the workbench knows (a Raspberry Pi) is refused
    // as that, naming what it is, not as a helper to install (issue 22). Without its helper a
    // device shows what the login user can read; when that is not a whole mode (the memory clock
    // is root's to read), the helper's message is the one that helps.
    const bool noGpuTable = tables.value(QLatin1String("gpu_hz")).toArray().isEmpty();
    const auto failure = [&info, noGpuTable](const QString &error) {
        if (const Expected<JetsonFamily> family = jetsonFamilyOf(info.model, 0);
            noGpuTable && !family)
            return Expected<DeviceInfo>::failure(family.error());
        if (info.helperUsable())
            return Expected<DeviceInfo>::failure(error);
        return Expected<DeviceInfo>::failure(
            QStringLiteral("the device's privileged helper cannot be used: %1")
                .arg(info.helperMessage));
    };

    auto cores = integers<int>(tables, QStringLiteral("cores"), QStringLiteral("tables.cores"));
    auto cpu =
        integers<qint64>(tables, QStringLiteral("cpu_khz"), QStringLiteral("tables.cpu_khz"));
    auto gpu = integers<qint64>(tables, QStringLiteral("gpu_hz"), QStringLiteral("tables.gpu_hz"));
    // An empty EMC table: the memory clock cannot be controlled there; the spec fixes it at the
    // current clock (deviceSpecFromReport).
    const bool emcFixed = tables.value(QLatin1String("emc_hz")).isArray() &&
        tables.value(QLatin1String("emc_hz")).toArray().isEmpty();
    auto emc = emcFixed
        ? Expected<QVector<qint64>>(QVector<qint64> {})
        : integers<qint64>(tables, QStringLiteral("emc_hz"), QStringLiteral("tables.emc_hz"));
    for (const auto *list : {&cpu, &gpu, &emc}) {
        if (!*list)
            return failure(list->error());
    }
    if (!cores)
        return failure(cores.error());
    info.cores = *cores;
    info.cpuKHz = *cpu;
    info.gpuHz = *gpu;
    info.emcHz = *emc;

    for (const QJsonValue &preset : result.value(QLatin1String("presets")).toArray()) {
        const QJsonObject p = preset.toObject();
        // A cap that is not a whole positive number is left unknown (0), never guessed.
        const auto cap = [&p](const char *key) {
            const double v = p.value(QLatin1String(key)).toDouble();
            return v >= 1 && v <= 1e13 && std::floor(v) == v ? qint64(v) : qint64(0);
        };
        DevicePreset read;
        read.id = p.value(QLatin1String("id")).toInt();
        read.name = p.value(QLatin1String("name")).toString().left(64);
        read.cores = int(std::min<qint64>(cap("cores"), kMaxWireCores));
        read.cpuMaxKHz = cap("cpu_khz_max");
        read.gpuMaxHz = cap("gpu_hz_max");
        read.emcMaxHz = cap("emc_hz_max");
        info.presets.append(read);
    }
    for (const QJsonValue &zone : result.value(QLatin1String("thermal")).toArray()) {
        const double temperature = zone.toObject().value(QLatin1String("temp_c")).toDouble();
        // Not a reading (1e300, NaN, a disabled zone's -273): it neither pauses a sweep for
        // ever nor hides a hot zone.
        if (!(temperature >= kMinZoneC && temperature <= kMaxZoneC))
            continue;
        if (temperature > info.hottestC) {
            info.hottestC = temperature;
            info.hottestZone = zone.toObject().value(QLatin1String("zone")).toString();
        }
    }
    for (const QJsonValue &rail : result.value(QLatin1String("rails")).toArray())
        info.rails.append(rail.toString());
    Expected<PowerMode> mode =
        modeFromJson(result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"));
    if (!mode)
        return failure(mode.error());
    info.mode = *mode;
    const DeviceKind kind = deviceKindOf(info.report(), info.reportedKind);
    info.kind = kind.kind;
    info.kindProblem = kind.problem;
    info.ownTables = kind.spec && !kind.matchesBuiltin;
    return info;
}

DeviceReport DeviceInfo::report() const
{
    DeviceReport r;
    r.model = model;
    r.l4t = l4t;
    r.maxCores = cores.isEmpty() ? 0 : *std::max_element(cores.cbegin(), cores.cend());
    r.cpuKHz = cpuKHz;
    r.gpuHz = gpuHz;
    r.emcHz = emcHz;
    r.currentEmcHz = mode.emcHz;
    for (const DevicePreset &p : presets) {
        DeviceReport::ReportedPreset reported;
        reported.name = p.name;
        reported.id = p.id;
        // A device whose EMC cannot be controlled reports no EMC cap: it runs at the one clock.
        const qint64 emcCap = emcHz.isEmpty() && p.emcMaxHz <= 0 ? mode.emcHz : p.emcMaxHz;
        if (p.cores > 0 && p.cpuMaxKHz > 0 && p.gpuMaxHz > 0 && emcCap > 0) {
            Preset caps;
            caps.name = p.name;
            caps.id = p.id;
            caps.cores = p.cores;
            caps.cpuMaxKHz = p.cpuMaxKHz;
            caps.gpuMaxHz = p.gpuMaxHz;
            caps.emcMaxHz = emcCap;
            reported.caps = caps;
        }
        r.presets.append(reported);
    }
    r.rails = rails;
    return r;
}

QString DeviceInfo::summary() const
{
    QStringList parts {model};
    if (!l4t.isEmpty())
        parts.append(QStringLiteral("L4T %1").arg(l4t));
    parts.append(mode.toShort());
    return parts.join(QStringLiteral(" · "));
}

Expected<ProfileResult> ProfileResult::fromJson(const QJsonObject &result,
                                                const PlausibleRanges &ranges)
{
    ProfileResult out;
    if (result.value(QLatin1String("time_ms")).toObject().value(QLatin1String("median")).isNull())
        return Expected<ProfileResult>::failure(
            QStringLiteral("no clean minibatches: power had not settled before the workload "
                           "ended (%1 minibatches ran); profile with more minibatches")
                .arg(result.value(QLatin1String("discarded")).toInt()));
    Expected<Quartiles3> time = quartiles(result, QStringLiteral("time_ms"));
    if (!time)
        return Expected<ProfileResult>::failure(time.error());
    Expected<Quartiles3> power = quartiles(result, QStringLiteral("power_w"));
    if (!power)
        return Expected<ProfileResult>::failure(power.error());
    if (!(time->median > 0) || !(power->median > 0))
        return missing<ProfileResult>(QStringLiteral("time_ms/power_w"),
                                      QStringLiteral("positive medians"));
    out.timeMs = *time;
    out.powerW = *power;
    // The largest sample (agents since schema 7 send it; null or absent from older ones).
    const QJsonValue peak =
        result.value(QLatin1String("power_w")).toObject().value(QLatin1String("max"));
    if (!peak.isUndefined() && !peak.isNull()) {
        if (!peak.isDouble())
            return missing<ProfileResult>(QStringLiteral("power_w.max"),
                                          QStringLiteral("a number"));
        out.peakPowerW = peak.toDouble();
    }
    out.minibatches = result.value(QLatin1String("minibatches")).toInt();
    out.discarded = result.value(QLatin1String("discarded")).toInt();
    out.settleSeconds = result.value(QLatin1String("settle_s")).toDouble();
    out.settled = result.value(QLatin1String("settled")).toBool(true);
    out.bootId = result.value(QLatin1String("boot_id")).toString();
    Expected<PowerMode> mode =
        modeFromJson(result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"));
    if (!mode)
        return Expected<ProfileResult>::failure(mode.error());
    out.mode = *mode;
    // Numbers no device of this kind measures are refused, never stored.
    ProfileValues values;
    values.timeQ1 = time->q1;
    values.timeMedian = time->median;
    values.timeQ3 = time->q3;
    values.powerQ1 = power->q1;
    values.powerMedian = power->median;
    values.powerQ3 = power->q3;
    values.peakPowerW = out.peakPowerW;
    values.cores = out.mode.cores;
    if (const QString problem = implausible(values, ranges); !problem.isEmpty())
        return Expected<ProfileResult>::failure(
            QStringLiteral("agent reply: implausible %1").arg(problem));
    return out;
}

QJsonObject WorkloadSpec::toJson() const
{
    if (!builtin.isEmpty()) {
        QJsonObject out {{QStringLiteral("kind"), QStringLiteral("builtin")},
                         {QStringLiteral("name"), builtin},
                         {QStringLiteral("batch_size"), batchSize}};
        if (inference)
            out.insert(QStringLiteral("inference"), true);
        return out;
    }
    QJsonObject out {{QStringLiteral("kind"), QStringLiteral("command")},
                     {QStringLiteral("argv"), QJsonArray::fromStringList(argv)}};
    if (!workingDirectory.isEmpty())
        out.insert(QStringLiteral("cwd"), workingDirectory);
    if (commandTakesBatch)
        out.insert(QStringLiteral("batch_size"), batchSize);
    if (inference)
        out.insert(QStringLiteral("inference"), true);
    if (!environment.isEmpty()) {
        QJsonObject env;
        for (const auto &[name, value] : environment)
            env.insert(name, value);
        out.insert(QStringLiteral("env"), env);
    }
    if (!recogniser.isEmpty()) {
        QJsonObject recognise {{QStringLiteral("by"), recogniser}};
        if (recogniser == QLatin1String("regex")) {
            recognise.insert(QStringLiteral("pattern"), pattern);
            recognise.insert(QStringLiteral("unit"), unit);
        }
        out.insert(QStringLiteral("recognise"), recognise);
    }
    if (skip > 0)
        out.insert(QStringLiteral("skip"), skip);
    if (timeoutSeconds > 0)
        out.insert(QStringLiteral("timeout_s"), timeoutSeconds);
    return out;
}

WorkloadSpec WorkloadSpec::fromDefinition(const WorkloadDefinition &definition)
{
    WorkloadSpec spec;
    spec.argv = definition.argv;
    spec.workingDirectory = definition.workingDirectory;
    spec.environment = definition.environment;
    spec.recogniser = WorkloadRecognisers::name(definition.recogniser);
    if (definition.recogniser == WorkloadDefinition::Recogniser::Regex) {
        spec.pattern = definition.pattern;
        spec.unit = WorkloadRecognisers::unitName(definition.unit);
    }
    spec.skip = definition.skip;
    spec.timeoutSeconds = definition.timeoutSeconds;
    return spec;
}

QVector<WorkloadOutputLine> failedWorkloadOutput(const QJsonObject &errorDetails)
{
    return WorkloadOutput::fromJson(errorDetails.value(QLatin1String("output")).toArray(), 20);
}

WorkloadSpec WorkloadSpec::atBatch(int batch) const
{
    WorkloadSpec spec = *this;
    if (batch > 0) {
        spec.batchSize = batch;
        spec.commandTakesBatch = builtin.isEmpty();
    }
    return spec;
}

Expected<WorkloadSpec> WorkloadSpec::fromJson(const QJsonObject &object)
{
    WorkloadSpec spec;
    const QString kind = object.value(QLatin1String("kind")).toString();
    if (kind == QLatin1String("builtin")) {
        spec.builtin = object.value(QLatin1String("name")).toString();
        spec.batchSize = object.value(QLatin1String("batch_size")).toInt(16);
        spec.inference = object.value(QLatin1String("inference")).toBool(false);
        if (spec.builtin.isEmpty())
            return missing<WorkloadSpec>(QStringLiteral("workload.name"), QStringLiteral("a name"));
        return spec;
    }
    if (kind == QLatin1String("command")) {
        for (const QJsonValue &arg : object.value(QLatin1String("argv")).toArray())
            spec.argv.append(arg.toString());
        spec.workingDirectory = object.value(QLatin1String("cwd")).toString();
        spec.inference = object.value(QLatin1String("inference")).toBool(false);
        if (object.contains(QLatin1String("batch_size"))) {
            spec.batchSize = object.value(QLatin1String("batch_size")).toInt(0);
            spec.commandTakesBatch = true;
            if (spec.batchSize < 1 || spec.batchSize > 4096)
                return missing<WorkloadSpec>(QStringLiteral("workload.batch_size"),
                                             QStringLiteral("a minibatch size of 1 to 4096"));
        }
        if (spec.argv.isEmpty())
            return missing<WorkloadSpec>(QStringLiteral("workload.argv"),
                                         QStringLiteral("a non-empty list of strings"));
        if (Status parsed = readRecognition(object, &spec); !parsed)
            return passOn<Expected<WorkloadSpec>>(parsed);
        return spec;
    }
    return missing<WorkloadSpec>(QStringLiteral("workload.kind"),
                                 QStringLiteral("builtin or command"));
}

}  // namespace ptwb
