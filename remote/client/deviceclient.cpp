#include "deviceclient.h"

#include "transport.h"

#include <QJsonDocument>
#include <QJsonParseError>

#include <utility>

namespace ptwb {

void DeviceCall::finish(DeviceReply reply)
{
    if (m_finished)
        return;
    m_finished = true;
    m_timeout.stop();
    m_reply = std::move(reply);
    Q_EMIT finished(m_reply);
    deleteLater();
}

DeviceClient::DeviceClient(Transport *transport, QObject *parent)
    : QObject(parent)
    , m_transport(transport)
{
    transport->setParent(this);
    connect(transport, &Transport::lineReceived, this, &DeviceClient::handleLine);
    connect(transport, &Transport::closed, this, &DeviceClient::handleClosed);
}

DeviceClient::~DeviceClient()
{
    // Calls still in flight hear about it; their receivers may outlive the client.
    failCalls(QStringLiteral("the client was closed"));
}

void DeviceClient::connectToDevice()
{
    if (m_transport->isOpen())
        return;  // connected, or hello is on its way: ready() or disconnected() will follow
    m_ready = false;
    m_closeReported = false;
    // One hello per open, even if an earlier open never came up.
    disconnect(m_helloOnOpen);
    Q_EMIT connecting();
    m_helloOnOpen = connect(
        m_transport, &Transport::opened, this,
        [this] {
            DeviceCall *hello = call(QStringLiteral("hello"));
            connect(hello, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
                if (!reply.ok && reply.error.code == QLatin1String("disconnected"))
                    return;  // already reported by handleClosed()
                const QString helperState = reply.result.value(QLatin1String("helper"))
                                                .toObject()
                                                .value(QLatin1String("state"))
                                                .toString()
                                                .left(32);
                m_helperProblem = helperState == QLatin1String("ok") ? QString() : helperState;
                Expected<DeviceInfo> info = reply.ok
                    ? DeviceInfo::fromJson(reply.result)
                    : Expected<DeviceInfo>::failure(reply.error.text());
                if (!info) {
                    // Not a device we can drive: say why, and let the transport go.
                    handleClosed(QStringLiteral("hello failed: %1").arg(info.error()));
                    m_closeReported = true;  // the transport's own "closed" says less
                    m_transport->close();
                    return;
                }
                m_info = *info;
                m_ready = true;
                Q_EMIT ready(m_info);
            });
        },
        Qt::SingleShotConnection);
    m_transport->open();
}

void DeviceClient::disconnectFromDevice()
{
    if (m_transport)
        m_transport->close();
}

DeviceCall *DeviceClient::call(const QString &op, const QJsonObject &fields, int timeoutMs)
{
    const qint64 id = m_nextId++;
    auto *pending = new DeviceCall(id, op, this);
    QJsonObject request = fields;
    request.insert(QStringLiteral("id"), double(id));
    request.insert(QStringLiteral("op"), op);

    if (!m_transport || !m_transport->isOpen()) {
        // Finish on the next turn of the event loop, so the caller can connect first.
        QTimer::singleShot(0, pending, [pending] {
            pending->finish(
                {false,
                 {},
                 {QStringLiteral("disconnected"), QStringLiteral("no device is connected"), {}}});
        });
        return pending;
    }
    m_calls.insert(id, pending);
    pending->m_timeout.setSingleShot(true);
    pending->m_timeout.setInterval(timeoutMs);
    connect(&pending->m_timeout, &QTimer::timeout, pending, [this, pending, op, timeoutMs] {
        m_calls.remove(pending->id());
        pending->finish({false,
                         {},
                         {QStringLiteral("timeout"),
                          QStringLiteral("%1: no answer from the device within %2 s")
                              .arg(op)
                              .arg(timeoutMs / 1000.0),
                          {}}});
    });
    pending->m_timeout.start();
    m_transport->sendLine(QJsonDocument(request).toJson(QJsonDocument::Compact));
    return pending;
}

DeviceCall *DeviceClient::applyMode(const PowerMode &mode)
{
    return call(QStringLiteral("apply_mode"), {{QStringLiteral("mode"), modeToJson(mode)}});
}

DeviceCall *DeviceClient::armRevert(int seconds)
{
    return call(QStringLiteral("arm_revert"), {{QStringLiteral("seconds"), seconds}});
}

DeviceCall *DeviceClient::samplePower(int intervalMs, int count)
{
    return call(QStringLiteral("sample_power"),
                {{QStringLiteral("interval_ms"), intervalMs}, {QStringLiteral("count"), count}});
}

DeviceCall *DeviceClient::profile(const WorkloadSpec &workload, int minibatches)
{
    return call(QStringLiteral("profile"),
                {{QStringLiteral("workload"), workload.toJson()},
                 {QStringLiteral("minibatches"), minibatches}});
}

DeviceCall *DeviceClient::testWorkload(const WorkloadSpec &workload, int seconds, int minibatches,
                                       int timeoutMs)
{
    return call(QStringLiteral("test_workload"),
                {{QStringLiteral("workload"), workload.toJson()},
                 {QStringLiteral("seconds"), seconds},
                 {QStringLiteral("minibatches"), minibatches}},
                timeoutMs);
}

DeviceCall *DeviceClient::runConcurrent(const ConcurrentRunRequest &request, int timeoutMs)
{
    return call(QStringLiteral("run_concurrent"), request.toJson(), timeoutMs);
}

DeviceCall *DeviceClient::stop(const DeviceCall *streaming)
{
    return call(QStringLiteral("stop"), {{QStringLiteral("target"), double(streaming->id())}});
}

void DeviceClient::handleLine(const QByteArray &line)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(line, &parseError);
    if (!document.isObject()) {
        Q_EMIT protocolWarning(
            QStringLiteral("not a JSON object from the agent: %1").arg(QString::fromUtf8(line)));
        return;
    }
    const QJsonObject message = document.object();
    const qint64 id = qint64(message.value(QLatin1String("id")).toDouble(-1));
    const QPointer<DeviceCall> pending = m_calls.value(id);

    if (message.contains(QLatin1String("event"))) {
        const QString kind = message.value(QLatin1String("event")).toString();
        if (pending) {
            pending->m_timeout.start();  // a streaming call is alive while it talks
            Q_EMIT pending->eventReceived(kind, message);
        } else {
            Q_EMIT unsolicitedEvent(kind, message);
        }
        return;
    }
    if (!pending) {
        Q_EMIT protocolWarning(
            QStringLiteral("a reply for no request in flight: %1").arg(QString::fromUtf8(line)));
        return;
    }
    m_calls.remove(id);
    DeviceReply reply;
    reply.ok = message.value(QLatin1String("ok")).toBool();
    if (reply.ok) {
        reply.result = message.value(QLatin1String("result")).toObject();
    } else {
        const QJsonObject error = message.value(QLatin1String("error")).toObject();
        reply.error = {error.value(QLatin1String("code")).toString(QStringLiteral("bad_reply")),
                       error.value(QLatin1String("message")).toString(), error};
    }
    pending->finish(std::move(reply));
}

void DeviceClient::failCalls(const QString &reason)
{
    const auto calls = m_calls;
    m_calls.clear();
    for (const QPointer<DeviceCall> &pending : calls) {
        if (pending)
            pending->finish({false, {}, {QStringLiteral("disconnected"), reason, {}}});
    }
}

void DeviceClient::handleClosed(const QString &reason)
{
    if (std::exchange(m_closeReported, false))
        return;
    m_ready = false;
    failCalls(reason);
    Q_EMIT disconnected(reason);
}

}  // namespace ptwb
