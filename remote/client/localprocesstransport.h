#pragma once

#include "transport.h"

#include <QProcess>
#include <QStringList>

namespace ptwb {

// Runs the agent as a child process and talks to it over its stdin/stdout. Used for the
// simulated Jetson; the program and its arguments are passed as a list, never through a shell.
class LocalProcessTransport : public Transport
{
    Q_OBJECT

public:
    LocalProcessTransport(QString program, QStringList arguments, QString description,
                          QObject *parent = nullptr);
    ~LocalProcessTransport() override;

    void open() override;
    void close() override;
    bool isOpen() const override;
    void sendLine(const QByteArray &line) override;
    QString description() const override { return m_description; }

    // The agent's recent stderr (its log), for error messages and the log view.
    QStringList recentLog() const { return m_log; }

private:
    void readOutput();
    void readLog();
    void finish(const QString &reason);

    QProcess m_process;
    QString m_program;
    QStringList m_arguments;
    QString m_description;
    QByteArray m_pending;  // a partial stdout line
    QStringList m_log;
    bool m_closing = false;
    bool m_finished = false;
};

}  // namespace ptwb
