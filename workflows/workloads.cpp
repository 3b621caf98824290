#include "workloads.h"

#include "deviceclient.h"
#include "store/store.h"
#include "store/workloadlibrary.h"
#include "transport.h"
#include "util/printable.h"

#include <QJsonArray>
#include <QTimer>

#include <cmath>

namespace ptwb::workflows {

namespace {

// The agent keeps the last 40 lines; a few more are tolerated, never an unbounded list.
constexpr int kMaxReportLines = 100;
// Inactivity on top of the test's own seconds before the call is given up (a workload that
// prints nothing still has the agent's power events and, in the end, its result).
constexpr int kTestSlackMs = 60000;

std::optional<double> positiveMedian(const QJsonObject &result, const char *key)
{
    const QJsonValue median =
        result.value(QLatin1String(key)).toObject().value(QLatin1String("median"));
    if (median.isDouble() && std::isfinite(median.toDouble()) && median.toDouble() > 0)
        return median.toDouble();
    return std::nullopt;
}

Status checkTestWorkload(const WorkloadSpec &workload)
{
    if (!workload.builtin.isEmpty())
        return {};
    if (workload.argv.isEmpty() || workload.argv.first().trimmed().isEmpty())
        return Status::badInput(InputField::Run,
                                QStringLiteral("expected a command to test (argv is empty)"));
    return {};
}

}  // namespace

Expected<QVector<WorkloadEntry>> listWorkloads(Store &store, const QString &deviceKind)
{
    using Result = Expected<QVector<WorkloadEntry>>;
    QVector<WorkloadEntry> entries;
    for (const QString &name : builtinWorkloadNames())
        entries.append({name, true, std::nullopt});
    const Expected<QVector<WorkloadDefinition>> definitions = WorkloadLibrary(store).all();
    if (!definitions)
        return passOn<Result>(definitions);
    for (const WorkloadDefinition &definition : *definitions) {
        if (!deviceKind.isEmpty() && !definition.deviceKind.isEmpty() &&
            definition.deviceKind != deviceKind)
            continue;
        entries.append({definition.name, false, definition});
    }
    return entries;
}

Status addWorkload(Store &store, const WorkloadDefinition &definition)
{
    return WorkloadLibrary(store).add(definition);
}

Status updateWorkload(Store &store, const QString &oldName, const WorkloadDefinition &definition)
{
    return WorkloadLibrary(store).update(oldName, definition);
}

Status removeWorkload(Store &store, const QString &name)
{
    return WorkloadLibrary(store).remove(name);
}

Expected<WorkloadDefinition> duplicateWorkload(Store &store, const QString &name)
{
    return WorkloadLibrary(store).duplicate(name);
}

Expected<std::optional<WorkloadDefinition>> findWorkload(Store &store, const QString &name)
{
    return WorkloadLibrary(store).find(name);
}

Expected<WorkloadTestReport> WorkloadTestReport::fromJson(const QJsonObject &result)
{
    WorkloadTestReport report;
    const QJsonValue lines = result.value(QLatin1String("lines"));
    if (!lines.isArray()) {
        return Expected<WorkloadTestReport>::failure(
            QStringLiteral("agent reply: field 'lines': expected a list of output lines"));
    }
    report.lines = WorkloadOutput::fromJson(lines.toArray(), kMaxReportLines);
    report.minibatches = std::max(0, result.value(QLatin1String("minibatches")).toInt());
    report.medianMs = positiveMedian(result, "time_ms");
    report.medianW = positiveMedian(result, "power_w");
    const QJsonValue exit = result.value(QLatin1String("exit_status"));
    if (exit.isDouble())
        report.exitStatus = exit.toInt();
    report.reason = WorkloadOutput::sanitisedText(result.value(QLatin1String("reason")).toString());
    const double seconds = result.value(QLatin1String("seconds")).toDouble();
    report.seconds = std::isfinite(seconds) ? std::max(0.0, seconds) : 0.0;
    return report;
}

WorkloadTest::WorkloadTest(DeviceEndpoint device, WorkloadSpec workload, int seconds,
                           QObject *parent)
    : OneCallRun(std::move(device), parent)
    , m_workload(std::move(workload))
    , m_seconds(seconds)
{
}

void WorkloadTest::begin()
{
    Status checked = checkTestWorkload(m_workload);
    if (checked && (m_seconds < 1 || m_seconds > kMaxSeconds)) {
        checked = Status::badInput(InputField::None,
                                   QStringLiteral("test duration: expected 1 to %1 device "
                                                  "seconds, got %2")
                                       .arg(kMaxSeconds)
                                       .arg(m_seconds));
    }
    OneCallRun::begin(checked);
}

DeviceCall *WorkloadTest::makeCall(DeviceClient &client)
{
    const int minibatches = std::min(WorkloadDefinition::kMaxMinibatches,
                                     std::max(2, m_workload.skip + kTestMinibatches));
    DeviceCall *call =
        client.testWorkload(m_workload, m_seconds, minibatches, m_seconds * 1000 + kTestSlackMs);
    connect(call, &DeviceCall::eventReceived, this,
            [this](const QString &kind, const QJsonObject &event) {
                if (kind != QLatin1String("minibatch"))
                    return;
                const double ms = event.value(QLatin1String("ms")).toDouble();
                if (std::isfinite(ms) && ms > 0)
                    Q_EMIT minibatch(event.value(QLatin1String("index")).toInt(), ms);
            });
    return call;
}

void WorkloadTest::succeed(const QJsonObject &result)
{
    finish(WorkloadTestReport::fromJson(result));
}

void WorkloadTest::fail(const Status &why)
{
    finish(passOn<Expected<WorkloadTestReport>>(why));
}

void WorkloadTest::finish(const Expected<WorkloadTestReport> &report)
{
    if (end())
        Q_EMIT finished(report);
}

std::unique_ptr<WorkloadTest> startWorkloadTest(const DeviceEndpoint &device,
                                                const WorkloadSpec &workload, int seconds,
                                                QObject *parent)
{
    std::unique_ptr<WorkloadTest> test(new WorkloadTest(device, workload, seconds, parent));
    test->begin();
    return test;
}

}  // namespace ptwb::workflows
