// Waiting for a child while passing on the signals a person or a service
// manager sends the runtime (`vigil run`, `vigil exec` in the foreground).
#pragma once

#include <sys/types.h>

namespace vigil::runtime {

// Waits for child `pid` to exit, sending it every forwardable signal the
// caller receives meanwhile; returns its exit status as a shell reports it
// (128+N for signal N).
int WaitForwardingSignals(pid_t pid);

}  // namespace vigil::runtime
