#pragma once

#include "modes/powermode.h"
#include "util/expected.h"
#include "wire.h"

#include <QJsonObject>

#include <optional>

namespace ptwb {

// The agent's run_concurrent (docs/device-protocol.md, "Concurrent training and inference"):
// requests arrive at `arrivalRate` per second, evenly spaced; the device runs an inference
// minibatch of `infer.batchSize` requests each time that many have arrived and trains `train`
// in between.
struct ConcurrentRunRequest
{
    WorkloadSpec train;  // built-in (resnet18, mobilenet_v3)
    WorkloadSpec infer;  // built-in; its batchSize is b
    double arrivalRate = 0;  // requests per second, (0, 10000]
    double durationS = 60;  // device seconds of arrivals, (0, 3600]; at most 200,000 requests
    int sampleIntervalMs = 100;
    double progressEverySeconds = 1;  // wall seconds between progress events, 0.2..60

    QJsonObject toJson() const;
};

struct LatencyPercentiles
{
    double p50 = 0;
    double p95 = 0;
    double p99 = 0;
    double max = 0;
};

// What a run has measured so far (a progress event) or in all (the result). Parsed as untrusted
// input: counts bounded, rates finite and non-negative, percentiles non-negative and ordered.
struct ConcurrentMeasurement
{
    bool final = false;  // the result, not a progress event
    double runSeconds = 0;  // device seconds of the run's timeline so far
    int requests = 0;  // answered
    std::optional<LatencyPercentiles> latencyMs;  // none before the first batch is answered
    int trainMinibatches = 0;
    int inferMinibatches = 0;
    double trainPerSecond = 0;
    double inferPerSecond = 0;
    int overruns = 0;  // batches a training minibatch made late
    std::optional<double> powerMedianW;
    // The result only.
    double latencyMeanMs = 0;
    double maxOverrunMs = 0;
    int backlog = 0;  // batches late because the previous inference still ran
    double idleSeconds = 0;
    double trainMsMedian = 0;  // tT as measured
    double inferMsMedian = 0;  // tI as measured
    std::optional<double> powerMaxW;
    int powerSamples = 0;
    PowerMode mode;  // read back after the run

    static Expected<ConcurrentMeasurement> fromProgress(const QJsonObject &event);
    static Expected<ConcurrentMeasurement> fromResult(const QJsonObject &result);
};

}  // namespace ptwb
