// The supervisor's own seccomp filter (docs/design.md), installed once the
// container runs: from then on the supervisor only serves notifications,
// control requests and signals, and a bug a workload finds in a handler
// meets a short allow-list instead of the whole kernel — no exec, no new
// processes, no mounts, no namespaces, no kernel modules or BPF, and ptrace
// only to seize, continue and detach (never to read or write a tracee).
// Anything else fails with EPERM (the handler then fails the workload's
// syscall), so a missing entry breaks a feature, never containment.
#pragma once

#include <span>
#include <string_view>

#include "base/result.h"

namespace vigil::supervisor {

// The syscalls the supervisor keeps, by name.
std::span<const std::string_view> SupervisorSyscalls();

struct Confinement {
  // The ptrace platform, which also reads and sets the registers of the
  // threads it serves.
  bool traces_workload = false;
  // The sandbox's resolver runs in the supervisor: it opens UDP and TCP
  // sockets to ask upstream.
  bool resolves_names = false;
};

// Installs the filter on the calling thread (the supervisor has one).
Result<void> ConfineSupervisor(const Confinement& confinement = {});

}  // namespace vigil::supervisor
