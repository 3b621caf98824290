#include "onecallrun.h"

#include "deviceclient.h"
#include "transport.h"
#include "util/printable.h"

#include <QTimer>

namespace ptwb::workflows {

OneCallRun::OneCallRun(DeviceEndpoint device, QObject *parent)
    : QObject(parent)
    , m_device(std::move(device))
{
}

OneCallRun::~OneCallRun()
{
    if (m_client) {
        // Whatever runs on the device ends with the agent, which ends with the connection.
        m_client->disconnect(this);
        m_client->disconnectFromDevice();
    }
}

void OneCallRun::begin(const Status &checked)
{
    if (!checked) {
        QTimer::singleShot(0, this, [this, checked] { fail(checked); });
        return;
    }
    Expected<Transport *> transport = m_device.connect();
    if (!transport) {
        const Status error = Status::failure(transport.error());
        QTimer::singleShot(0, this, [this, error] { fail(error); });
        return;
    }
    m_client = std::make_unique<DeviceClient>(*transport);
    connect(m_client.get(), &DeviceClient::ready, this, [this] { onReady(); });
    connect(m_client.get(), &DeviceClient::disconnected, this, [this](const QString &reason) {
        if (m_call)
            return;  // the call in flight reports it
        fail(Status::failure(
            QStringLiteral("%1: %2").arg(m_device.address, printable(reason, kMaxReasonChars))));
    });
    m_client->connectToDevice();
}

void OneCallRun::onReady()
{
    if (m_cancelled) {
        fail(Status::failure(QStringLiteral("cancelled")));
        return;
    }
    Q_EMIT connected(m_device.name);
    m_call = makeCall(*m_client);
    connect(m_call, &DeviceCall::finished, this, [this](const DeviceReply &reply) {
        m_call = nullptr;
        if (reply.ok) {
            succeed(reply.result);
            return;
        }
        if (m_cancelled && reply.error.code == QLatin1String("stopped")) {
            fail(Status::failure(QStringLiteral("cancelled")));
            return;
        }
        const QString message = printable(reply.error.text(), kMaxReasonChars);
        // The agent refuses a request it cannot run as given (a launcher without a python).
        if (reply.error.code == QLatin1String("bad_field") ||
            reply.error.code == QLatin1String("bad_request")) {
            fail(Status::badInput(InputField::Run, message));
            return;
        }
        fail(Status::failure(QStringLiteral("%1: %2").arg(m_device.address, message)));
    });
}

void OneCallRun::cancel()
{
    if (m_finished || m_cancelled)
        return;
    m_cancelled = true;
    if (m_call && m_client)
        m_client->stop(m_call);
    else if (!m_client || !m_client->isReady())
        fail(Status::failure(QStringLiteral("cancelled")));
}

bool OneCallRun::end()
{
    if (m_finished)
        return false;
    m_finished = true;
    if (m_client) {
        m_client->disconnect(this);
        m_client->disconnectFromDevice();
        m_client.release()->deleteLater();
    }
    return true;
}

}  // namespace ptwb::workflows
