// Which namespaces a container creates and which it joins by path.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/oci/linux.h"

namespace vigil::runtime {

// The name (comm) the supervisor gives itself: a namespace path through a
// supervisor's pid (/proc/PID/ns/net) is taken to mean its container's.
inline constexpr std::string_view kSupervisorName = "vigil-sup";

// The CLONE_NEW* flags of the namespaces to create at clone time. The cgroup
// namespace is left out (the init unshares it once it sits in its cgroup, so
// the namespace is rooted there: UnshareLate), and so is time
// (PrepareChildNamespaces).
std::uint64_t CloneFlags(const config::Linux& linux_spec);

// The CLONE_NEW* flags of every namespace the container has, created or
// joined: what `exec` passes to setns(init's pidfd, flags).
int NamespaceFlags(const config::Linux& linux_spec);

// Whether the container gets a new namespace of `type` (listed, no path).
bool CreatesNamespace(const config::Linux& linux_spec, config::NamespaceType type);

// Whether the network namespace at `path` is this process's (a config can
// name the host's by path); false when it cannot be told.
bool IsHostsNetworkNamespace(const std::string& path);

// Whether the container gets a new user namespace (mappings to write).
inline bool CreatesUserNamespace(const config::Linux& linux_spec) {
  return CreatesNamespace(linux_spec, config::NamespaceType::kUser);
}

// The caller's own pid and time namespaces, kept while PrepareChildNamespaces
// points its children elsewhere. Restore them once the init is cloned: while
// a process's children would go to another pid namespace it cannot create a
// thread (clone(CLONE_THREAD) answers EINVAL), and the hooks it runs later
// belong in the runtime's namespaces.
class ChildNamespaces {
 public:
  // setns(2) back into each namespace that was left.
  Result<void> Restore();

 private:
  friend Result<ChildNamespaces> PrepareChildNamespaces(const config::Linux& linux_spec);
  UniqueFd own_pid_;   // set when the pid namespace for children changed
  UniqueFd own_time_;  // likewise for time
};

// In the supervisor, before cloning the init: the namespaces that only a
// process's children enter. Joins the pid and time namespaces given by path;
// creates a new time namespace and writes its offsets, which the kernel
// allows only before any process lives in it.
Result<ChildNamespaces> PrepareChildNamespaces(const config::Linux& linux_spec);

// Whether this process runs as the host's root: uid 0 in the initial user
// namespace. Not so for a user (rootless), nor for root in another user
// namespace (podman as a user runs its runtime as root of its own), where
// the host's cgroups are not this process's to make.
bool IsHostRoot();

// In the init: joins every other namespace given by path, the user namespace
// first (it decides what the others may do).
Result<void> JoinNamespaces(const config::Linux& linux_spec);

// In the init, after the supervisor moved it into its cgroup: creates the
// cgroup namespace if asked for.
Result<void> UnshareLate(const config::Linux& linux_spec);

}  // namespace vigil::runtime
