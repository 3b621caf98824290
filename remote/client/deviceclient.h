#pragma once

#include "concurrentrun.h"
#include "transport.h"
#include "warninglimiter.h"
#include "wire.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace ptwb {

// An error from the device side, as a value: the agent's code and message ("readback_mismatch",
// "gpu_hz: wrote 1300500000, kernel reports 1032750000"), or one of the client's own codes:
// "timeout", "disconnected", "bad_reply".
struct DeviceError
{
    QString code;
    QString message;
    QJsonObject details;  // the whole error object (e.g. "readback" for a mismatch)

    QString text() const { return QStringLiteral("%1: %2").arg(code, message); }
};

// The end of one request: a result object or an error.
struct DeviceReply
{
    bool ok = false;
    QJsonObject result;
    DeviceError error;
};

// One request in flight. Streamed events arrive as eventReceived(); finished() comes exactly
// once, and then the call deletes itself (connect before returning to the event loop).
class DeviceCall : public QObject
{
    Q_OBJECT

public:
    DeviceCall(qint64 id, QString op, QObject *parent)
        : QObject(parent)
        , m_id(id)
        , m_op(std::move(op))
    {
    }
    qint64 id() const { return m_id; }
    const QString &op() const { return m_op; }
    bool isFinished() const { return m_finished; }
    const DeviceReply &reply() const { return m_reply; }

Q_SIGNALS:
    void eventReceived(const QString &kind, const QJsonObject &event);
    void finished(const ptwb::DeviceReply &reply);

private:
    friend class DeviceClient;
    void finish(DeviceReply reply);

    qint64 m_id;
    QString m_op;
    bool m_finished = false;
    bool m_streaming = false;  // its events restart the inactivity clock (up to m_deadline)
    DeviceReply m_reply;
    QTimer m_timeout;
    QTimer m_deadline;  // streaming calls: the most an event stream may keep it alive
};

// The typed client of the agent protocol (docs/device-protocol.md) over any Transport:
// request ids, per-request inactivity timeouts (an event of a streaming call restarts the clock,
// up to a ceiling), streamed events as signals, and errors as values. Lives on the GUI thread;
// nothing here blocks.
//
// What a device sends is not trusted (docs/ssh.md, "What a hostile device can and cannot do to
// the desktop"): a line that is not a JSON object, or too long to read (the transport cut it),
// is a bad line: warned about (rate-limited, a printable prefix only), and after kMaxBadLines
// of them the device is dropped (Transport::drop, final). A reply for no request in flight
// (duplicate, late, never asked) is ignored with a rate-limited warning; a reply whose envelope
// has the wrong types finishes its call as "bad_reply".
class DeviceClient : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDefaultTimeoutMs = 15000;
    // Bad lines (not protocol lines) before the device is dropped.
    static constexpr int kMaxBadLines = 32;
    // A streaming call's events keep it alive at most this many times its inactivity timeout
    // (unless call() is given its own ceiling).
    static constexpr int kStreamingCeilingFactor = 240;

    // Takes ownership of the transport.
    explicit DeviceClient(Transport *transport, QObject *parent = nullptr);
    ~DeviceClient() override;

    // Opens the transport and asks `hello`; then ready() or disconnected(). Does nothing while
    // the transport is open.
    void connectToDevice();
    void disconnectFromDevice();
    bool isReady() const { return m_ready; }
    const DeviceInfo &info() const { return m_info; }
    // The state of the device's privileged helper from the last hello when it cannot be used
    // ("missing", "outdated", ...; docs/ssh.md), also when that hello failed because of it;
    // empty when it can be used or no hello came.
    QString helperProblem() const { return m_helperProblem; }
    Transport *transport() const { return m_transport; }

    // timeoutMs: inactivity. Events restart that clock only for the streaming operations
    // (sample_power, profile, run_concurrent, test_workload), and at most until maxDurationMs
    // (0: kStreamingCeilingFactor x timeoutMs) after the call: then it finishes as "timeout".
    DeviceCall *call(const QString &op, const QJsonObject &fields = {},
                     int timeoutMs = kDefaultTimeoutMs, qint64 maxDurationMs = 0);
    static bool isStreamingOp(const QString &op);
    DeviceCall *getMode() { return call(QStringLiteral("get_mode")); }
    DeviceCall *applyMode(const PowerMode &mode);
    DeviceCall *armRevert(int seconds);
    DeviceCall *confirm() { return call(QStringLiteral("confirm")); }
    DeviceCall *samplePower(int intervalMs, int count);
    DeviceCall *profile(const WorkloadSpec &workload, int minibatches);
    // test_workload: runs the workload in the current mode for up to `seconds` (device) or
    // `minibatches` recognised ones, streaming "minibatch" and "power" events; the result has
    // its output lines and what was recognised. Stop it early with stop().
    DeviceCall *testWorkload(const WorkloadSpec &workload, int seconds, int minibatches,
                             int timeoutMs = kDefaultTimeoutMs);
    // run_concurrent; progress events keep it alive (an inactivity timeout, like every call).
    DeviceCall *runConcurrent(const ConcurrentRunRequest &request, int timeoutMs);
    // Ends a streaming call; its own reply then says "stopped".
    DeviceCall *stop(const DeviceCall *streaming);

Q_SIGNALS:
    // connectToDevice() has started the agent; ready() or disconnected() follows.
    void connecting();
    void ready(const ptwb::DeviceInfo &info);
    // The connection is gone (or never came up); every call in flight finished "disconnected".
    void disconnected(const QString &reason);
    // An event that belongs to no call in flight, e.g. "reverted" after its arm call finished.
    void unsolicitedEvent(const QString &kind, const QJsonObject &event);
    // A line the client could not use (not JSON, unknown id): shown in the log, never fatal.
    void protocolWarning(const QString &text);

private:
    void handleLine(const QByteArray &line);
    void handleClosed(const QString &reason);
    void failCalls(const QString &reason);
    void badLine(const QString &what, const QString &prefix);
    void strayLine(const QString &what, const QByteArray &line);

    int m_badLines = 0;  // since connectToDevice()
    WarningLimiter m_badWarnings;
    WarningLimiter m_strayWarnings;

    QPointer<Transport> m_transport;
    QMetaObject::Connection m_helloOnOpen;
    QHash<qint64, QPointer<DeviceCall>> m_calls;
    qint64 m_nextId = 1;
    bool m_ready = false;
    QString m_helperProblem;
    bool m_closeReported = false;  // a failed hello said why; the transport's close follows
    DeviceInfo m_info;
};

}  // namespace ptwb
