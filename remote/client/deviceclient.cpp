#include "deviceclient.h"

#include "linereader.h"
#include "nonfinitejson.h"
#include "transport.h"
#include "util/printable.h"

#include <QJsonDocument>

#include <cmath>
#include <limits>
#include <utility>

namespace ptwb {

void DeviceCall::finish(DeviceReply reply)
{
    if (m_finished)
        return;
    m_finished = true;
    m_timeout.stop();
    m_deadline.stop();
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
    connect(transport, &Transport::lineDiscarded, this,
            [this](qint64 bytes, const QString &prefix) {
                badLine(QStringLiteral("a line of more than %1 bytes (thrown away)").arg(bytes),
                        prefix);
            });
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
    m_badLines = 0;
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

bool DeviceClient::isStreamingOp(const QString &op)
{
    return op == QLatin1String("sample_power") || op == QLatin1String("profile") ||
        op == QLatin1String("run_concurrent") || op == QLatin1String("test_workload");
}

DeviceCall *DeviceClient::call(const QString &op, const QJsonObject &fields, int timeoutMs,
                               qint64 maxDurationMs)
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
    pending->m_streaming = isStreamingOp(op);
    if (pending->m_streaming) {
        const qint64 ceiling =
            maxDurationMs > 0 ? maxDurationMs : qint64(timeoutMs) * kStreamingCeilingFactor;
        pending->m_deadline.setSingleShot(true);
        pending->m_deadline.setInterval(
            int(qMin<qint64>(ceiling, std::numeric_limits<int>::max())));
        connect(&pending->m_deadline, &QTimer::timeout, pending, [this, pending, op, ceiling] {
            m_calls.remove(pending->id());
            pending->finish({false,
                             {},
                             {QStringLiteral("timeout"),
                              QStringLiteral("%1: no reply from the device within %2 s (its "
                                             "events alone do not keep a call going longer)")
                                  .arg(op)
                                  .arg(ceiling / 1000.0),
                              {}}});
        });
        pending->m_deadline.start();
    }
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

namespace {

// The id of a line, if it can be one of ours: a whole number in 1..2^53 (ids are counted from
// 1); anything else (a string, null, 1e300, 2.5) matches no call.
qint64 idOf(const QJsonObject &message)
{
    const QJsonValue id = message.value(QLatin1String("id"));
    if (!id.isDouble())
        return -1;
    const double value = id.toDouble();
    if (!(value >= 1 && value <= 9007199254740992.0) || std::floor(value) != value)
        return -1;
    return qint64(value);
}

}  // namespace

void DeviceClient::badLine(const QString &what, const QString &prefix)
{
    ++m_badLines;
    if (m_badLines >= kMaxBadLines && m_transport && m_transport->isOpen()) {
        const QString reason =
            QStringLiteral("%1 dropped: it sent %2 lines that are not protocol lines (the last: "
                           "%3, '%4')")
                .arg(m_transport->description())
                .arg(m_badLines)
                .arg(what, prefix);
        Q_EMIT protocolWarning(reason);
        m_transport->drop(reason);
        return;
    }
    if (!m_badWarnings.count())
        return;
    Q_EMIT protocolWarning(
        QStringLiteral("%1 from the agent: '%2'%3")
            .arg(what, prefix)
            .arg(m_badWarnings.total() > 1
                     ? QStringLiteral(" (%1 bad lines so far; the device is dropped at %2)")
                           .arg(m_badWarnings.total())
                           .arg(kMaxBadLines)
                     : QString()));
}

void DeviceClient::strayLine(const QString &what, const QByteArray &line)
{
    if (!m_strayWarnings.count())
        return;
    Q_EMIT protocolWarning(
        QStringLiteral("%1 (ignored): '%2'%3")
            .arg(what, printable(QString::fromUtf8(line.left(240)), LineReader::kPrefixChars))
            .arg(m_strayWarnings.total() > 1
                     ? QStringLiteral(" (%1 such lines so far)").arg(m_strayWarnings.total())
                     : QString()));
}

void DeviceClient::handleLine(const QByteArray &line)
{
    QJsonDocument document = QJsonDocument::fromJson(line);
    if (!document.isObject()) {
        // NaN or 1e999 in a reply: read as the string "NaN", so the reply still ends its call
        // (refused by its checks) rather than leaving it to wait for its timeout. Still a bad
        // line.
        const std::optional<QByteArray> nulled = withNonFiniteNumbersAsText(line);
        if (nulled)
            document = QJsonDocument::fromJson(*nulled);
        badLine(document.isObject()
                    ? QStringLiteral("numbers JSON has no room for (NaN, infinity; read as text)")
                    : QStringLiteral("not a JSON object"),
                printable(QString::fromUtf8(line.left(240)), LineReader::kPrefixChars));
        if (!document.isObject() || !m_transport || !m_transport->isOpen())
            return;
    }
    const QJsonObject message = document.object();
    const qint64 id = idOf(message);
    const QPointer<DeviceCall> pending = id > 0 ? m_calls.value(id) : QPointer<DeviceCall>();

    if (message.contains(QLatin1String("event"))) {
        const QString kind = message.value(QLatin1String("event")).toString().left(64);
        if (pending) {
            // A streaming call is alive while it talks (up to its ceiling, m_deadline); another
            // call's clock is not moved by events.
            if (pending->m_streaming)
                pending->m_timeout.start();
            Q_EMIT pending->eventReceived(kind, message);
        } else if (id > 0 && id < m_nextId) {
            Q_EMIT unsolicitedEvent(kind, message);  // e.g. "reverted" after its arm call
        } else {
            strayLine(QStringLiteral("an event for no request in flight (never sent)"), line);
        }
        return;
    }
    if (!pending) {
        strayLine(id > 0 && id < m_nextId
                      ? QStringLiteral("a reply for no request in flight (late or repeated)")
                      : QStringLiteral("a reply for no request in flight (never sent)"),
                  line);
        return;
    }
    m_calls.remove(id);
    DeviceReply reply;
    const QJsonValue ok = message.value(QLatin1String("ok"));
    const QJsonValue result = message.value(QLatin1String("result"));
    const QJsonValue error = message.value(QLatin1String("error"));
    if (ok.isBool() && ok.toBool() && result.isObject()) {
        reply.ok = true;
        reply.result = result.toObject();
    } else if (ok.isBool() && !ok.toBool() && error.isObject() &&
               error.toObject().value(QLatin1String("code")).isString()) {
        const QJsonObject object = error.toObject();
        reply.error = {object.value(QLatin1String("code")).toString().left(64),
                       object.value(QLatin1String("message")).toString().left(4000), object};
    } else {
        reply.error = {QStringLiteral("bad_reply"),
                       QStringLiteral("%1: the reply is not {\"ok\": true, \"result\": {...}} "
                                      "or {\"ok\": false, \"error\": {\"code\": ...}}")
                           .arg(pending->op()),
                       {}};
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
