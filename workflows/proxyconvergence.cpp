#include "proxyconvergence.h"

#include "deviceclient.h"
#include "store/convergencestore.h"
#include "transport.h"
#include "util/printable.h"

#include <QJsonArray>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace ptwb::workflows {

namespace {

// The agent sends an event at least every 2 wall seconds while a batch size trains.
constexpr int kInactivityMs = 60000;
constexpr int kMaxSourceChars = 500;
constexpr int kMaxOutputLines = 20;

std::optional<double> finiteNumber(const QJsonValue &value)
{
    if (!value.isDouble() || !std::isfinite(value.toDouble()))
        return std::nullopt;
    return value.toDouble();
}

QString numberText(double value)
{
    return QString::number(value, 'g', 6);
}

}  // namespace

// --- the request

Status ProxyRunRequest::check() const
{
    if (workload.trimmed().isEmpty())
        return Status::badInput(InputField::Workload,
                                QStringLiteral("expected the workload the relation is for"));
    if (argv.isEmpty() || argv.first().trimmed().isEmpty()) {
        return Status::badInput(InputField::Run,
                                QStringLiteral("expected the proxy training command, e.g. "
                                               "python3 proxy_train.py"));
    }
    if (batchSizes.size() < ConvergenceRelation::kMinPoints || batchSizes.size() > kMaxBatchSizes) {
        return Status::badInput(InputField::BatchSizes,
                                QStringLiteral("%1 batch size(s); expected %2 to %3 (a list "
                                               "such as 8,16,32)")
                                    .arg(batchSizes.size())
                                    .arg(ConvergenceRelation::kMinPoints)
                                    .arg(kMaxBatchSizes));
    }
    for (int i = 0; i < batchSizes.size(); ++i) {
        if (batchSizes[i] < 1 || batchSizes[i] > ConvergenceRelation::kMaxBatch ||
            batchSizes.indexOf(batchSizes[i]) != i) {
            return Status::badInput(InputField::BatchSizes,
                                    QStringLiteral("batch size %1: expected each once, 1 to %2")
                                        .arg(batchSizes[i])
                                        .arg(ConvergenceRelation::kMaxBatch));
        }
    }
    if (!(targetAccuracy > 0 && targetAccuracy <= 1)) {
        return Status::badInput(InputField::None,
                                QStringLiteral("target accuracy: %1; expected a fraction in "
                                               "(0, 1], e.g. 0.9 (not a percent)")
                                    .arg(targetAccuracy));
    }
    if (!(baseLearningRate > 0 && baseLearningRate <= 1e6)) {
        return Status::badInput(InputField::None,
                                QStringLiteral("base learning rate: %1; expected a positive "
                                               "number, e.g. 0.1")
                                    .arg(baseLearningRate));
    }
    if (baseBatch < 1 || baseBatch > ConvergenceRelation::kMaxBatch) {
        return Status::badInput(InputField::None,
                                QStringLiteral("base batch: %1; expected the batch size the "
                                               "base learning rate is for, 1 to %2")
                                    .arg(baseBatch)
                                    .arg(ConvergenceRelation::kMaxBatch));
    }
    if (timeoutSeconds < 1 || timeoutSeconds > 7 * 86400) {
        return Status::badInput(InputField::None,
                                QStringLiteral("timeout: %1 s; expected 1 to 604800 device "
                                               "seconds per batch size")
                                    .arg(timeoutSeconds));
    }
    if (maxSamples < 1) {
        return Status::badInput(InputField::None,
                                QStringLiteral("sample cap: %1; expected a positive number of "
                                               "samples")
                                    .arg(maxSamples));
    }
    if (!(sampleScale > 0 && std::isfinite(sampleScale))) {
        return Status::badInput(InputField::None,
                                QStringLiteral("sample scale: %1; expected a positive factor "
                                               "(the full dataset's size over the proxy's)")
                                    .arg(sampleScale));
    }
    return {};
}

double ProxyRunRequest::learningRateAt(int batch) const
{
    return baseLearningRate * batch / double(std::max(1, baseBatch));
}

QJsonObject ProxyRunRequest::toJson() const
{
    QJsonObject workloadObject {{QStringLiteral("kind"), QStringLiteral("command")},
                                {QStringLiteral("argv"), QJsonArray::fromStringList(argv)}};
    if (!workingDirectory.isEmpty())
        workloadObject.insert(QStringLiteral("cwd"), workingDirectory);
    QJsonArray sizes;
    for (int size : batchSizes)
        sizes.append(size);
    return {{QStringLiteral("workload"), workloadObject},
            {QStringLiteral("batch_sizes"), sizes},
            {QStringLiteral("target_accuracy"), targetAccuracy},
            {QStringLiteral("base_lr"), baseLearningRate},
            {QStringLiteral("base_batch"), baseBatch},
            {QStringLiteral("timeout_s"), timeoutSeconds},
            {QStringLiteral("max_samples"), double(maxSamples)}};
}

QString ProxyRunRequest::commandLine() const
{
    QStringList words;
    for (const QString &word : argv) {
        words.append(word.contains(QLatin1Char(' ')) || word.isEmpty()
                         ? QLatin1Char('"') + word + QLatin1Char('"')
                         : word);
    }
    return words.join(QLatin1Char(' '));
}

// --- one batch size's result

QString ProxyBatchResult::statusText() const
{
    switch (status) {
    case Status::Reached:
        return QStringLiteral("reached");
    case Status::NotReached:
        return QStringLiteral("did not reach the target");
    case Status::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

Expected<ProxyBatchResult> ProxyBatchResult::fromJson(const QJsonObject &object)
{
    using Result = Expected<ProxyBatchResult>;
    ProxyBatchResult r;
    r.batchSize = object.value(QLatin1String("batch_size")).toInt();
    if (r.batchSize < 1 || r.batchSize > ConvergenceRelation::kMaxBatch)
        return Result::failure(QStringLiteral("the device reported a proxy run without a batch "
                                              "size in 1..4096"));
    r.learningRate = finiteNumber(object.value(QLatin1String("learning_rate"))).value_or(0);
    const QString status = object.value(QLatin1String("status")).toString();
    r.status = status == QLatin1String("reached") ? Status::Reached
        : status == QLatin1String("not_reached")  ? Status::NotReached
                                                  : Status::Failed;
    r.samples = finiteNumber(object.value(QLatin1String("samples")));
    r.accuracy = finiteNumber(object.value(QLatin1String("accuracy")));
    r.seconds = std::max(0.0, finiteNumber(object.value(QLatin1String("seconds"))).value_or(0));
    r.reason =
        printable(object.value(QLatin1String("reason")).toString(), OneCallRun::kMaxReasonChars);
    r.output =
        WorkloadOutput::fromJson(object.value(QLatin1String("output")).toArray(), kMaxOutputLines);
    if (r.reached() && !(r.samples && *r.samples > 0)) {
        r.status = Status::Failed;
        r.reason = QStringLiteral("the device reported the target reached without a positive "
                                  "number of samples");
    }
    if (!r.reached() && r.reason.isEmpty())
        r.reason = QStringLiteral("no reason given");
    return r;
}

// --- the report

Expected<ConvergenceRelation> ProxyRunReport::relation(const ProxyRunRequest &request) const
{
    ConvergenceRelation relation;
    relation.workload = request.workload;
    relation.targetAccuracy = request.targetAccuracy;
    relation.provenance = QLatin1String(ConvergenceProvenance::kProxy);
    QString source = QStringLiteral("proxy run on %1: %2; lr %3 at batch %4, scaled linearly")
                         .arg(host, request.commandLine(), numberText(request.baseLearningRate))
                         .arg(request.baseBatch);
    if (request.sampleScale != 1)
        source += QStringLiteral("; samples x %1").arg(numberText(request.sampleScale));
    relation.source = printable(source, kMaxSourceChars);
    for (const ProxyBatchResult &batch : batches) {
        // The agent never reports the target reached past the cap; a device that does is not
        // believed.
        if (batch.reached() && *batch.samples <= double(request.maxSamples))
            relation.points.append({batch.batchSize, *batch.samples * request.sampleScale});
    }
    std::sort(relation.points.begin(), relation.points.end(),
              [](const ConvergencePoint &a, const ConvergencePoint &b) {
                  return a.batchSize < b.batchSize;
              });
    if (relation.points.size() < ConvergenceRelation::kMinPoints) {
        QStringList why = shortfalls();
        return Expected<ConvergenceRelation>::failure(
            QStringLiteral("%1 of %2 batch sizes reached accuracy %3; a relation needs at least "
                           "%4, nothing was stored%5")
                .arg(relation.points.size())
                .arg(batches.size())
                .arg(numberText(request.targetAccuracy))
                .arg(ConvergenceRelation::kMinPoints)
                .arg(why.isEmpty() ? QString()
                                   : QStringLiteral(":\n  ") + why.join(QStringLiteral("\n  "))));
    }
    if (const QString problem = relation.problem(); !problem.isEmpty())
        return Expected<ConvergenceRelation>::failure(problem);
    return relation;
}

QStringList ProxyRunReport::shortfalls() const
{
    QStringList lines;
    for (const ProxyBatchResult &batch : batches) {
        if (!batch.reached()) {
            lines.append(QStringLiteral("batch %1: %2: %3")
                             .arg(batch.batchSize)
                             .arg(batch.statusText(), batch.reason));
        }
    }
    return lines;
}

// --- the run

ProxyConvergenceRun::ProxyConvergenceRun(DeviceEndpoint device, ProxyRunRequest request,
                                         QObject *parent)
    : OneCallRun(std::move(device), parent)
    , m_request(std::move(request))
{
}

void ProxyConvergenceRun::begin()
{
    m_clock.start();
    OneCallRun::begin(m_request.check());
}

DeviceCall *ProxyConvergenceRun::makeCall(DeviceClient &client)
{
    DeviceCall *call =
        client.call(QStringLiteral("proxy_convergence"), m_request.toJson(), kInactivityMs);
    connect(call, &DeviceCall::eventReceived, this, &ProxyConvergenceRun::onEvent);
    return call;
}

void ProxyConvergenceRun::succeed(const QJsonObject &result)
{
    ProxyRunReport report;
    report.host = device().address;
    for (const QJsonValue &value : result.value(QLatin1String("batches")).toArray()) {
        Expected<ProxyBatchResult> batch = ProxyBatchResult::fromJson(value.toObject());
        if (!batch) {
            finish(passOn<Expected<ProxyRunReport>>(batch));
            return;
        }
        report.batches.append(*batch);
    }
    finish(report);
}

void ProxyConvergenceRun::fail(const Status &why)
{
    finish(passOn<Expected<ProxyRunReport>>(why));
}

void ProxyConvergenceRun::onEvent(const QString &kind, const QJsonObject &event)
{
    if (kind == QLatin1String("proxy_batch")) {
        m_within = 0;
        const int batch = event.value(QLatin1String("batch_size")).toInt();
        Q_EMIT batchStarted(event.value(QLatin1String("index")).toInt(),
                            m_request.batchSizes.size(), batch, m_request.learningRateAt(batch));
    } else if (kind == QLatin1String("proxy_progress")) {
        const std::optional<double> samples = finiteNumber(event.value(QLatin1String("samples")));
        const std::optional<double> accuracy = finiteNumber(event.value(QLatin1String("accuracy")));
        if (!samples || !accuracy)
            return;  // a heartbeat
        const double byAccuracy = *accuracy / m_request.targetAccuracy;
        const double bySamples = *samples / double(m_request.maxSamples);
        m_within = std::clamp(std::max(byAccuracy, bySamples), m_within, 0.99);
        Q_EMIT progressed(event.value(QLatin1String("batch_size")).toInt(), *samples, *accuracy);
    } else if (kind == QLatin1String("proxy_result")) {
        Expected<ProxyBatchResult> result =
            ProxyBatchResult::fromJson(event.value(QLatin1String("result")).toObject());
        ++m_batchesDone;
        m_within = 0;
        if (result)
            Q_EMIT batchFinished(*result);
    }
}

double ProxyConvergenceRun::fractionDone() const
{
    const int count = std::max<qsizetype>(1, m_request.batchSizes.size());
    return std::clamp((m_batchesDone + m_within) / count, 0.0, 1.0);
}

std::optional<double> ProxyConvergenceRun::secondsLeft() const
{
    const double done = fractionDone();
    if (done < 0.02 || !m_clock.isValid())
        return std::nullopt;
    const double elapsed = m_clock.elapsed() / 1000.0;
    return elapsed * (1 - done) / done;
}

void ProxyConvergenceRun::finish(const Expected<ProxyRunReport> &report)
{
    if (end())
        Q_EMIT finished(report);
}

std::unique_ptr<ProxyConvergenceRun>
startProxyConvergence(const DeviceEndpoint &device, const ProxyRunRequest &request, QObject *parent)
{
    std::unique_ptr<ProxyConvergenceRun> run(new ProxyConvergenceRun(device, request, parent));
    run->begin();
    return run;
}

Expected<ConvergenceRelation> storeProxyRelation(Store &store, const ProxyRunRequest &request,
                                                 const ProxyRunReport &report)
{
    Expected<ConvergenceRelation> relation = report.relation(request);
    if (!relation)
        return relation;
    if (const Status stored = ConvergenceStore(store).replace(*relation); !stored)
        return passOn<Expected<ConvergenceRelation>>(stored);
    Expected<std::optional<ConvergenceRelation>> loaded =
        ConvergenceStore(store).load(request.workload);
    if (!loaded)
        return passOn<Expected<ConvergenceRelation>>(loaded);
    return loaded->has_value() ? **loaded : *relation;
}

}  // namespace ptwb::workflows
