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
    // Gives the device up at once because it misbehaves (DeviceClient: too many lines that are
    // not protocol lines): stops reading, ends the agent without close()'s grace and reports
    // closed(reason) later. The close is final (lastCloseIsFinal()): connecting again would meet
    // the same device.
    virtual void drop(const QString &reason) = 0;
    // Whether the last closed() is one that connecting again cannot fix and must not try to:
    // an SSH host key refused, changed or not confirmed, or a device dropped. Sweeps give such a
    // device up at once.
    virtual bool lastCloseIsFinal() const { return false; }

Q_SIGNALS:
    void opened();
    // One line of the agent's stdout, at most LineReader::kMaxLineBytes (linereader.h).
    void lineReceived(const QByteArray &line);
    // A longer line was cut and thrown away (each further kMaxLineBytes of a line without end
    // is reported again): how many bytes so far and how it starts, printable.
    void lineDiscarded(qint64 bytes, const QString &prefix);
    // The agent is gone: it exited, the connection dropped, or it never started. `reason` says
    // which, with the agent's last stderr lines when there are any.
    void closed(const QString &reason);
};

}  // namespace ptwb
