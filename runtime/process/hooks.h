// OCI hooks: programs run at fixed points of the lifecycle with the
// container's state JSON on their standard input.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/oci/spec.h"
#include "config/oci/state.h"
#include "seccomp/profile.h"

namespace vigil::runtime {

// Until `fd` is readable (true) or `timeout_ms` passes (false; -1: no
// limit), blocking the thread in poll(2). A caller that must keep serving
// meanwhile (the supervisor, whose sentry answers the container's
// syscalls while a poststart hook runs) passes a wait of its own.
Result<bool> PollReadable(int fd, int timeout_ms);

// Where hooks run when the caller is not where they belong: the supervisor
// lives in the container's UTS, IPC and network namespaces and in some of
// its cgroups, and hooks run where runc's do, in the runtime's own.
struct HookPlacement {
  std::vector<int> namespaces;            // setns'd into first (the runtime's own)
  std::vector<std::string> cgroup_procs;  // cgroup.procs files each hook moves itself to
  // Loaded by each hook before its exec: the container's profile for
  // startContainer hooks, which run in the container under it as runc's
  // do. Made without a listener (has_notify false), so its notifying
  // rules answer ENOSYS there: the agent's listener is the process's.
  const seccomp::CompiledFilter* profile = nullptr;
};

// Runs `hooks` (of the kind named `kind`, e.g. "createRuntime") in order,
// each with `state` on stdin, stopping at the first that fails: exits
// non-zero, dies, or outlives its timeout (then it is killed). The error
// names the hook: "hooks.createRuntime[1] /usr/bin/x: exit status 2".
// `wait` is how the caller waits for a hook to end, as PollReadable does.
using WaitReadable = std::function<Result<bool>(int fd, int timeout_ms)>;
Result<void> RunHooks(std::string_view kind, const std::vector<config::Hook>& hooks,
                      const config::State& state, const HookPlacement& placement = {},
                      const WaitReadable& wait = PollReadable);

// The hooks of `kind` in `spec` (empty when there are none).
const std::vector<config::Hook>& HooksOf(const config::Spec& spec, std::string_view kind);

}  // namespace vigil::runtime
