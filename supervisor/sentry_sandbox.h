// The sentry's view of one container (sentry::Sandbox), filled from what the
// supervisor holds: the init, its cgroup and its namespaces.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/oci/spec.h"
#include "runtime/cgroup/cgroup.h"
#include "sentry/core/sandbox.h"

namespace vigil::supervisor {

// The deputy's namespaces (docs/security.md, "The deputy rule"): whatever
// the sentry does for the workload, it does in the workload's UTS, IPC and
// network namespaces, because the calling thread lives there — a tun
// device it opens attaches to the container's network, /proc/sys/net and
// /proc/sys/kernel/msg* show the container's, a socket it makes is the
// container's, uname(2) gives the container's live names. Nothing switches
// per call, so no handler can act in the supervisor's own by mistake.
//
// Moves the calling thread (the supervisor's only one so far: threads it
// starts later inherit them) into the container's UTS, IPC and network
// namespaces; returns the ones it left, for the hooks it still runs in
// the runtime's.
Result<std::vector<UniqueFd>> JoinContainerNamespaces(pid_t init_pid);

// A user's supervisor (rootless) may act in its container's namespaces
// only from inside the container's user namespace, which owns them, and
// cannot leave it again for the host's. So it joins the init's user, UTS,
// IPC and network namespaces for good. Call before any thread starts: a
// process with more than one thread cannot change user namespace.
Result<void> JoinContainerNamespacesForGood(pid_t init_pid);

// Whether the init of a container runs in the host's network namespace:
// the supervisor's own, which is its caller's (dockerd, containerd,
// conmon run in the host's; PID 1's is not readable once the supervisor
// has confined itself, and would differ only for a runtime that itself
// runs in a sandbox, whose namespace is then "the host" it guards). No network namespace in the
// config, or one joined by path that is the host's (`docker run --network host`, a hostNetwork
// pod), shares the host's loopback; a new one, or a pod's (the pause container's), does not.
// Decided on the namespace the init is in, never on the config's words.
Result<bool> SharesHostNetwork(pid_t init_pid);

// `policy` and `cgroup` must outlive the sandbox; a null `cgroup` (a
// user's container without one) leaves memory and process counts to the
// host's. `init_start` is the init's start time in clock ticks since boot.
Result<sentry::Sandbox> SentrySandbox(const std::string& id, const config::Spec& spec,
                                      const config::Policy& policy, std::uint64_t init_start,
                                      const runtime::cgroup::Cgroup* cgroup);

}  // namespace vigil::supervisor
