#pragma once

#include <QProcess>
#include <QStringList>
#include <QTest>

// Runs the real ptwb executable and collects what it printed.
struct CliResult
{
    int exitCode = -1;
    QString out;
    QString err;
};

inline CliResult runCli(const QStringList &arguments, int timeoutMs = 60000)
{
    QProcess process;
    process.setProgram(QStringLiteral(PTWB_CLI));
    process.setArguments(arguments);
    process.start();
    CliResult result;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        result.err = QStringLiteral("ptwb did not finish within %1 ms").arg(timeoutMs);
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}
