#pragma once

#include "deviceendpoint.h"
#include "util/expected.h"

#include <QJsonObject>
#include <QObject>

#include <memory>

namespace ptwb {
class DeviceCall;
class DeviceClient;
}  // namespace ptwb

namespace ptwb::workflows {

// One call on a connection of its own (a workload test, a proxy run): connect, make the call,
// end with its reply, let the connection go. Which call and what its result means are the
// subclass's; what every such run does alike is here, once: a request refused before
// connecting, a connection that fails or drops, Cancel (stop, "cancelled"), the agent refusing
// the request (BadInput about InputField::Run), a device's error text made printable.
class OneCallRun : public QObject
{
    Q_OBJECT

public:
    // Device text in a failure is cut to this many characters.
    static constexpr int kMaxReasonChars = 1000;

    ~OneCallRun() override;
    // Stops the call on the device; the run then ends "cancelled". Nothing once it has ended.
    void cancel();
    bool isFinished() const { return m_finished; }

Q_SIGNALS:
    void connected(const QString &deviceName);

protected:
    OneCallRun(DeviceEndpoint device, QObject *parent);
    // Connects, unless `checked` says the request cannot run: then the run fails with it on the
    // next turn of the event loop (so the caller can connect to finished() first).
    void begin(const Status &checked);
    // The call to make once connected (its events are the subclass's to connect).
    virtual DeviceCall *makeCall(DeviceClient &client) = 0;
    // The call's result: the subclass ends the run with what it means.
    virtual void succeed(const QJsonObject &result) = 0;
    // The run ends without a result, for this reason.
    virtual void fail(const Status &why) = 0;
    // Marks the run ended and lets the connection go; false when it had ended already (then
    // nothing more is to be reported).
    bool end();
    const DeviceEndpoint &device() const { return m_device; }

private:
    void onReady();

    DeviceEndpoint m_device;
    std::unique_ptr<DeviceClient> m_client;
    DeviceCall *m_call = nullptr;  // while the call is in flight
    bool m_cancelled = false;
    bool m_finished = false;
};

}  // namespace ptwb::workflows
