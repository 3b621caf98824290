#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

namespace ptwb {

// A byte pipe to one running agent: JSON lines out, JSON lines in. Implementations: a local
// process (the simulated Jetson) and an SSH channel. A transport knows nothing of the protocol;
// DeviceClient does.
class Transport : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

    // Starts the agent. Emits opened() or closed(reason) later, never before returning.
    virtual void open() = 0;
    // Stops the agent; closed() follows.
    virtual void close() = 0;
    virtual bool isOpen() const = 0;
    // Sends one line; the transport adds the newline.
    virtual void sendLine(const QByteArray &line) = 0;
    // What a person sees in a status bar or an error: "simulated AGX Orin", "nvidia@orin:22".
    virtual QString description() const = 0;
    // Whether the last closed() is one that connecting again cannot fix and must not try to:
    // an SSH host key refused, changed or not confirmed. Sweeps give such a device up at once.
    virtual bool lastCloseIsFinal() const { return false; }

Q_SIGNALS:
    void opened();
    void lineReceived(const QByteArray &line);
    // The agent is gone: it exited, the connection dropped, or it never started. `reason` says
    // which, with the agent's last stderr lines when there are any.
    void closed(const QString &reason);
};

}  // namespace ptwb
