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

struct Report
{
    QStringList lines;  // what the installer did, one step a line (printable only)
    QString sudoError;  // sudo's own complaint (a wrong password), else empty
    int exitStatus = -1;
    bool ok() const { return exitStatus == 0; }
};

QByteArray commandLine();
// This workbench's helper (remote/agent/ptwb_helper.py of this installation).
Expected<QByteArray> helperSource();
// On a connected session. The password is not kept past the call.
Expected<Report> install(SshSession &session, const QByteArray &password, const QByteArray &source);
// Connects with `options` (host-key check, authentication, prompts), installs, disconnects.
Expected<Report> run(const SshOptions &options, const QByteArray &password);

}  // namespace HelperSetup

}  // namespace ptwb
