#pragma once

class QThread;

namespace ptwb {

// The SSH worker threads that outlive their SshTransport. A transport never waits for its
// worker: the worker may be inside a blocking libssh call (a connect to a host that does not
// answer, up to SshOptions::connectTimeoutMs) or a terminal prompt, and the transport may be
// destroyed on the GUI thread, which must never freeze. So the transport hands its thread over
// here: it is deleted once it has finished by itself (on the application's thread), and at exit
// a QCoreApplication post routine (registered on the first adopt(), so the GUI, ptwb and every
// test get it without a call in main) waits for the ones still running, bounded, before the
// application goes away: no worker then runs while Qt and the statics are torn down. That wait
// is at exit only, after the last window has closed.
namespace SshThreads {

// Takes over a thread that was told to quit. The QThread object must live on the application's
// thread (SshTransport moves it there when it makes it), where it is deleted.
void adopt(QThread *thread);
// Waits up to `timeoutMs` in all for the adopted threads still running; true when none is left.
bool waitForAll(int timeoutMs);
// How many adopted threads are still running.
int running();

}  // namespace SshThreads

}  // namespace ptwb
