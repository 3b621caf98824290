#pragma once

#include "linereader.h"
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
    void drop(const QString &reason) override;
    bool lastCloseIsFinal() const override { return !m_dropReason.isEmpty(); }
    QString description() const override { return m_description; }

    // The agent's recent stderr (its log), for error messages and the log view.
    QStringList recentLog() const { return m_log; }

    static constexpr qsizetype kMaxLogLineBytes = 4096;

private:
    void readOutput();
    void readLog();
    void finish(const QString &reason);

    QProcess m_process;
    QString m_program;
    QStringList m_arguments;
    QString m_description;
    LineReader m_reader;  // stdout: protocol lines
    LineReader m_logReader {LineReader::OverLong::Truncate, kMaxLogLineBytes};  // stderr
    QStringList m_log;
    QString m_dropReason;
    bool m_closing = false;
    bool m_finished = false;
};

}  // namespace ptwb
