// The seccomp agent (runtime-spec config-linux.md, "listenerPath"): a
// program of the platform's, outside the container, that answers the
// syscalls a profile marks SCMP_ACT_NOTIFY. The profile's filter makes a
// listener in each container process (the init and every exec); the
// runtime takes a copy and sends it to the agent with the process's state,
// runc's protocol, so an agent written for runc serves vigil's containers.
#pragma once

#include <sys/types.h>

#include <string_view>

#include "base/result.h"
#include "config/oci/seccomp.h"
#include "config/oci/state.h"

namespace vigil::runtime {

// Copies the listener the process behind `pidfd` announced (its descriptor
// number, `announced`) and sends it to `profile.listener_path`: one message
// on a stream socket, the containerProcessState JSON of `pid` and `state`,
// with the listener attached. The runtime's copy is closed on return, so
// the agent's is the only one once the process execs: an agent that dies
// leaves the notified syscalls failing with ENOSYS, not hanging.
Result<void> HandToSeccompAgent(const config::Seccomp& profile, int pidfd,
                                std::string_view announced, pid_t pid, const config::State& state);

}  // namespace vigil::runtime
