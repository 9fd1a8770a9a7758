// Waiting for a child while passing on the signals a person or a service
// manager sends the runtime (`vigil run`, `vigil exec` in the foreground).
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace vigil::runtime {

// The signals a foreground vigil passes on to its child, and SIGCHLD.
sigset_t ForwardedSignals();

// A wait status as a shell reports it: the exit code, or 128+N for signal N.
int ShellStatus(int wait_status);

// Kills child `pid` (SIGKILL) and reaps it: a process started for a step
// that then failed must neither run on unmanaged nor stay a zombie.
void KillAndReap(pid_t pid);

// Waits for child `pid` to exit, sending it every forwardable signal the
// caller receives meanwhile; returns its exit status as a shell reports it.
int WaitForwardingSignals(pid_t pid);

}  // namespace vigil::runtime
