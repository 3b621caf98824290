#pragma once

#include "sshoptions.h"
#include "util/expected.h"

#include <QByteArray>
#include <QStringList>

namespace ptwb {

class SshSession;

// `ptwb device setup` and the Devices view's Set up: installs the privileged helper on a device
// over SSH (docs/ssh.md, "Least privilege"). One command runs, built from constants only:
//   sudo -S -p '' /usr/bin/python3 -I -c <loader>
// Its stdin carries the sudo password as the first line (never an argument, never stored or
// logged), then this workbench's remote/agent/ptwb_helper.py, which the loader runs as root to
// install itself root-owned, create its state directory and a sudoers drop-in for the login
// user, checked with visudo -c. Nothing is read from a user-writable file on the device.
namespace HelperSetup {

// What is shown of a setup. On success, `lines` are this workbench's own constants (the paths,
// the SHA-256 of the helper it sent, the sudoers rule it installs): nothing the device printed
// (a line planted in the login shell's startup files included) can change what the user reads
// as installed; only the user name is taken from the device's report, and only when it is a
// plain login name ([a-z_][a-z0-9_-]*). On failure `lines` are the device's output (printable)
// and `problem` says what went wrong.
struct Report
{
    QStringList lines;  // one step a line (printable only)
    QString sudoError;  // sudo's own complaint (a wrong password), else empty
    QString problem;  // the device exited 0 but did not report installing this helper
    QString user;  // whom the sudoers rule names
    int exitStatus = -1;
    bool ok() const { return exitStatus == 0 && problem.isEmpty(); }
};

// The rule the installer writes for `user` (the helper's sudoers_line()).
QString sudoersRule(const QString &user);
// The report of a finished install from the device's stdout (see Report).
Report reportOf(int exitStatus, const QByteArray &out, const QByteArray &err,
                const QByteArray &source);

QByteArray commandLine();
// This workbench's helper (remote/agent/ptwb_helper.py of this installation).
Expected<QByteArray> helperSource();
// On a connected session. The password is not kept past the call.
Expected<Report> install(SshSession &session, const QByteArray &password, const QByteArray &source);
// Connects with `options` (host-key check, authentication, prompts), installs, disconnects.
Expected<Report> run(const SshOptions &options, const QByteArray &password);

}  // namespace HelperSetup

}  // namespace ptwb
