// The OCI seccomp listener protocol (runtime-spec config-linux.md, "The
// Container Process State"): when linux.seccomp has SCMP_ACT_NOTIFY rules and
// a listenerPath, the runtime connects to that AF_UNIX stream socket once and
// sends the container process state as JSON, with the listener fd in
// SCM_RIGHTS, then closes the connection.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "config/oci/state.h"

namespace vigil::runtime {

// The container process state document:
//   {"ociVersion": state.oci_version, "fds": ["seccompFd"], "pid": pid,
//    "metadata": metadata, "state": {...state...}}
// `pid` is the container process as the runtime sees it (the init's pid in
// the runtime's pid namespace), which need not be `state.pid`; "metadata" is
// linux.seccomp.listenerMetadata and is left out when empty.
std::string ContainerProcessState(int pid, std::string_view metadata, const config::State& state);

// Connects to `listener_path` and sends `process_state_json` with
// `listener_fd` (still owned by the caller) in SCM_RIGHTS, the fd riding on
// the first sendmsg(2) as the spec requires. Errors name the path, e.g.
// `seccomp listener "/run/agent.sock": connect: Connection refused`.
Result<void> SendSeccompListener(const std::string& listener_path, int listener_fd,
                                 std::string_view process_state_json);

}  // namespace vigil::runtime
