#pragma once

#include <QProcess>
#include <QStringList>
#include <QTest>

// What a program run by a test printed (the real ptwb, the real window).
struct CliResult
{
    int exitCode = -1;
    QString out;
    QString err;
};

// Runs `program` to the end (killed after `timeoutMs`) and collects what it printed; `input` is
// its standard input (then closed).
inline CliResult
runProgram(const QString &program, const QStringList &arguments, int timeoutMs,
           const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
           const QByteArray &input = {})
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setProgram(program);
    process.setArguments(arguments);
    process.start();
    if (process.waitForStarted(timeoutMs)) {
        process.write(input);
        process.closeWriteChannel();
    }
    CliResult result;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        result.err = QStringLiteral("%1 did not finish within %2 ms").arg(program).arg(timeoutMs);
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

#ifdef PTWB_CLI
inline CliResult runCli(const QStringList &arguments, int timeoutMs = 60000)
{
    return runProgram(QStringLiteral(PTWB_CLI), arguments, timeoutMs);
}
#endif
