#include "concurrentrun.h"

#include <QJsonValue>

#include <cmath>

namespace ptwb {

namespace {

constexpr double kMaxCount = 1e9;
constexpr double kMaxRate = 1e6;  // per second
constexpr double kMaxMs = 1e9;
constexpr double kMaxWatts = 1e4;

using Result = Expected<ConcurrentMeasurement>;

Result bad(const QString &field, const QString &expected)
{
    return Result::failure(QStringLiteral("run_concurrent: %1: expected %2").arg(field, expected));
}

// A finite number in [lo, hi], or nothing (with `field` named) when it is not.
std::optional<double> number(const QJsonObject &object, const char *key, double lo, double hi)
{
    const QJsonValue value = object.value(QLatin1String(key));
    if (!value.isDouble())
        return std::nullopt;
    const double v = value.toDouble();
    if (!std::isfinite(v) || v < lo || v > hi)
        return std::nullopt;
    return v;
}

// The fields progress events and the result share.
Result common(const QJsonObject &object, bool final)
{
    ConcurrentMeasurement out;
    out.final = final;
    const struct
    {
        const char *key;
        int *target;
    } counts[] = {{"requests", &out.requests},
                  {"train_minibatches", &out.trainMinibatches},
                  {"infer_minibatches", &out.inferMinibatches},
                  {"overruns", &out.overruns}};
    for (const auto &c : counts) {
        const std::optional<double> v = number(object, c.key, 0, kMaxCount);
        if (!v || *v != std::floor(*v))
            return bad(QLatin1String(c.key), QStringLiteral("a count"));
        *c.target = int(*v);
    }
    const std::optional<double> trainRate = number(object, "train_per_s", 0, kMaxRate);
    const std::optional<double> inferRate = number(object, "infer_per_s", 0, kMaxRate);
    const std::optional<double> run = number(object, "run_s", 0, 1e7);
    if (!trainRate || !inferRate)
        return bad(QStringLiteral("train_per_s/infer_per_s"),
                   QStringLiteral("finite non-negative rates"));
    if (!run)
        return bad(QStringLiteral("run_s"), QStringLiteral("device seconds"));
    out.trainPerSecond = *trainRate;
    out.inferPerSecond = *inferRate;
    out.runSeconds = *run;
    const QJsonValue latency = object.value(QLatin1String("latency_ms"));
    if (latency.isObject()) {
        const QJsonObject l = latency.toObject();
        const std::optional<double> p50 = number(l, "p50", 0, kMaxMs);
        const std::optional<double> p95 = number(l, "p95", 0, kMaxMs);
        const std::optional<double> p99 = number(l, "p99", 0, kMaxMs);
        const std::optional<double> max = number(l, "max", 0, kMaxMs);
        if (!p50 || !p95 || !p99 || !max || *p50 > *p95 || *p95 > *p99 || *p99 > *max)
            return bad(QStringLiteral("latency_ms"),
                       QStringLiteral("p50 <= p95 <= p99 <= max, non-negative milliseconds"));
        out.latencyMs = LatencyPercentiles {*p50, *p95, *p99, *max};
    } else if (!latency.isNull() || out.requests > 0) {
        return bad(QStringLiteral("latency_ms"),
                   QStringLiteral("percentiles once requests are answered"));
    }
    return out;
}

}  // namespace

QJsonObject ConcurrentRunRequest::toJson() const
{
    WorkloadSpec inference = infer;
    inference.inference = true;  // implied by the field; said anyway
    return {{QStringLiteral("train"), train.toJson()},
            {QStringLiteral("infer"), inference.toJson()},
            {QStringLiteral("arrival_rate"), arrivalRate},
            {QStringLiteral("duration_s"), durationS},
            {QStringLiteral("sample_interval_ms"), sampleIntervalMs},
            {QStringLiteral("progress_every_s"), progressEverySeconds}};
}

Expected<ConcurrentMeasurement> ConcurrentMeasurement::fromProgress(const QJsonObject &event)
{
    Result out = common(event, false);
    if (!out)
        return out;
    const QJsonValue power = event.value(QLatin1String("power_w"));
    if (!power.isNull()) {
        const std::optional<double> w = number(event, "power_w", 0, kMaxWatts);
        if (!w)
            return bad(QStringLiteral("power_w"), QStringLiteral("watts or null"));
        out->powerMedianW = *w;
    }
    return out;
}

Expected<ConcurrentMeasurement> ConcurrentMeasurement::fromResult(const QJsonObject &result)
{
    Result out = common(result, true);
    if (!out)
        return out;
    if (!out->latencyMs || out->requests <= 0)
        return bad(QStringLiteral("requests"), QStringLiteral("answered requests"));
    const QJsonObject latency = result.value(QLatin1String("latency_ms")).toObject();
    const std::optional<double> mean = number(latency, "mean", 0, kMaxMs);
    if (!mean || *mean > out->latencyMs->max)
        return bad(QStringLiteral("latency_ms.mean"), QStringLiteral("at most the maximum"));
    out->latencyMeanMs = *mean;
    const std::optional<double> overrun = number(result, "max_overrun_ms", 0, kMaxMs);
    const std::optional<double> backlog = number(result, "backlog", 0, kMaxCount);
    const std::optional<double> idle = number(result, "idle_s", 0, 1e7);
    if (!overrun || !backlog || !idle)
        return bad(QStringLiteral("max_overrun_ms/backlog/idle_s"),
                   QStringLiteral("non-negative numbers"));
    out->maxOverrunMs = *overrun;
    out->backlog = int(*backlog);
    out->idleSeconds = *idle;
    const auto median = [&](const char *key, double *target) {
        const QJsonObject q = result.value(QLatin1String(key)).toObject();
        if (out->trainMinibatches == 0 && QLatin1String(key) == QLatin1String("train_ms") &&
            q.value(QLatin1String("median")).isNull()) {
            *target = 0;  // no training minibatch fitted
            return true;
        }
        const std::optional<double> v = number(q, "median", 0, kMaxMs);
        if (!v)
            return false;
        *target = *v;
        return true;
    };
    if (!median("train_ms", &out->trainMsMedian) || !median("infer_ms", &out->inferMsMedian))
        return bad(QStringLiteral("train_ms/infer_ms"), QStringLiteral("median milliseconds"));
    const QJsonObject power = result.value(QLatin1String("power_w")).toObject();
    if (!power.value(QLatin1String("median")).isNull()) {
        const std::optional<double> med = number(power, "median", 0, kMaxWatts);
        const std::optional<double> max = number(power, "max", 0, kMaxWatts);
        if (!med || !max || *med > *max)
            return bad(QStringLiteral("power_w"), QStringLiteral("median <= max watts"));
        out->powerMedianW = *med;
        out->powerMaxW = *max;
    }
    const std::optional<double> samples = number(result, "samples", 0, kMaxCount);
    out->powerSamples = samples ? int(*samples) : 0;
    Expected<PowerMode> mode =
        modeFromJson(result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"));
    if (!mode)
        return Result::failure(mode.error());
    out->mode = *mode;
    return out;
}

}  // namespace ptwb
