#pragma once

#include "deviceendpoint.h"
#include "onecallrun.h"
#include "store/convergence.h"
#include "store/workloadoutput.h"
#include "util/expected.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

namespace ptwb {
class DeviceCall;
class DeviceClient;
class Store;
}  // namespace ptwb

// Samples to accuracy measured by a proxy run (issue 17), for `ptwb convergence --proxy` and the
// window alike: the researcher's training command, on any host reached like a device (a GPU
// server, the Jetson itself, the simulated Jetson), trains once per batch size to the target
// accuracy with the learning rate scaled linearly with the batch (Goyal et al.), printing
// progress lines {"samples": N, "accuracy": A}; the agent's proxy_convergence op
// (docs/device-protocol.md). What reached the target becomes a relation of provenance "proxy".
namespace ptwb::workflows {

struct ProxyRunRequest
{
    static constexpr int kMaxBatchSizes = 32;  // the agent's limit
    static constexpr int kDefaultTimeoutSeconds = 3600;
    static constexpr qint64 kDefaultMaxSamples = 100000000;

    QString workload;  // the store's workload the relation belongs to
    QStringList argv;  // the proxy training command, run without a shell
    QString workingDirectory;  // absolute or under ~/; empty: the agent's
    QVector<int> batchSizes;  // each once, 1..4096
    double targetAccuracy = 0;  // 0 < a <= 1
    double baseLearningRate = 0;  // at baseBatch
    int baseBatch = 0;
    int timeoutSeconds = kDefaultTimeoutSeconds;  // device seconds per batch size
    qint64 maxSamples = kDefaultMaxSamples;  // per batch size
    // The measured samples are multiplied by this (the full dataset's size over the proxy
    // dataset's: epochs to accuracy carry over from one to the other); 1: stored as measured.
    double sampleScale = 1;

    // Why it cannot run, BadInput naming the field in words (Workload, Run for the command,
    // BatchSizes; the others with InputField::None and the field's name first); empty Status
    // when it can.
    Status check() const;
    // lr = base lr x batch / base batch (the linear scaling rule).
    double learningRateAt(int batch) const;
    // The request's fields as the agent reads them (docs/device-protocol.md).
    QJsonObject toJson() const;
    // "python3 proxy_train.py --model resnet18": the command as a person reads it.
    QString commandLine() const;
};

// One batch size's run, as the agent reported it; its text is sanitised.
struct ProxyBatchResult
{
    enum class Status { Reached, NotReached, Failed };

    int batchSize = 0;
    double learningRate = 0;
    Status status = Status::Failed;
    std::optional<double> samples;  // at the target when reached, else the last seen
    std::optional<double> accuracy;  // the last accuracy seen
    double seconds = 0;  // device seconds it trained
    QString reason;  // why it did not reach the target; empty when it did
    QVector<WorkloadOutputLine> output;  // its last lines when it did not reach the target

    bool reached() const { return status == Status::Reached; }
    // "reached", "did not reach the target", "failed"
    QString statusText() const;
    static Expected<ProxyBatchResult> fromJson(const QJsonObject &object);
};

struct ProxyRunReport
{
    QVector<ProxyBatchResult> batches;  // in the order run
    QString host;  // the device's name, for the relation's source

    // The relation of the batch sizes that reached the target (samples times the request's
    // sampleScale), provenance proxy; a failure naming every batch that did not when fewer
    // than two did (nothing to store then).
    Expected<ConvergenceRelation> relation(const ProxyRunRequest &request) const;
    // The batch sizes that did not reach the target, one line each ("64: failed: ...").
    QStringList shortfalls() const;
};

// A proxy run on one device, event-driven on the thread that creates it (which needs an event
// loop). finished() comes once: the report (some batches may not have reached the target) or
// why there is none (the device could not be reached, the request was refused, "cancelled").
class ProxyConvergenceRun : public OneCallRun
{
    Q_OBJECT

public:
    // An estimate of the share done (0..1): finished batch sizes, and within the running one
    // its accuracy over the target (or its samples over the cap, if more).
    double fractionDone() const;
    // Wall seconds left at the pace so far; none before 2 % is done.
    std::optional<double> secondsLeft() const;

Q_SIGNALS:
    void batchStarted(int index, int count, int batchSize, double learningRate);
    // A progress line of the running batch size (samples and accuracy as printed).
    void progressed(int batchSize, double samples, double accuracy);
    void batchFinished(const ptwb::workflows::ProxyBatchResult &result);
    void finished(const ptwb::Expected<ptwb::workflows::ProxyRunReport> &report);

private:
    friend std::unique_ptr<ProxyConvergenceRun>
    startProxyConvergence(const DeviceEndpoint &, const ProxyRunRequest &, QObject *);
    ProxyConvergenceRun(DeviceEndpoint device, ProxyRunRequest request, QObject *parent);
    void begin();
    DeviceCall *makeCall(DeviceClient &client) override;
    void succeed(const QJsonObject &result) override;
    void fail(const Status &why) override;
    void onEvent(const QString &kind, const QJsonObject &event);
    void finish(const Expected<ProxyRunReport> &report);

    ProxyRunRequest m_request;
    QElapsedTimer m_clock;
    int m_batchesDone = 0;
    double m_within = 0;  // share of the running batch size done
};

// Starts a proxy run. A request that cannot run (ProxyRunRequest::check) finishes at once (on
// the next turn of the event loop) with its BadInput.
std::unique_ptr<ProxyConvergenceRun> startProxyConvergence(const DeviceEndpoint &device,
                                                           const ProxyRunRequest &request,
                                                           QObject *parent = nullptr);

// Stores the report's relation as the workload's (ConvergenceStore::replace, provenance proxy,
// source the host and the command) and returns it; fewer than two batch sizes that reached the
// target store nothing and fail, naming each.
Expected<ConvergenceRelation> storeProxyRelation(Store &store, const ProxyRunRequest &request,
                                                 const ProxyRunReport &report);

}  // namespace ptwb::workflows
