// The per-container supervisor. Its pid is the one `create` writes to
// --pid-file, so to its parent (containerd's shim, conmon) it must look like
// the container's main process: it forwards the signals it gets to the init,
// and when the init exits it exits the same way (same code, or the same
// fatal signal).
#pragma once

#include "runtime/process/channel.h"
#include "supervisor/supervisor_args.h"

namespace vigil::supervisor {

// Runs in the child `create` forks (lifecycle::CreateContainer). Reports
// kCreated (or kError) on `to_create`, then supervises until the init
// exits. Never returns.
[[noreturn]] void RunSupervisor(SupervisorArgs args, runtime::Channel to_create);

}  // namespace vigil::supervisor
