// Who may give the supervisor orders over its control socket
// (ROOT/ID/control.sock): the runtime's caller, never a process of the
// container (docs/security.md, "The deputy rule"). The socket is a file in
// the state root, and a state root the container can read (`--root` under
// a directory it sees, a user's TMPDIR bound in) would otherwise let the
// workload stop its own timeout's clock (`paused`) or hand the sentry
// descriptors as if it were `vigil exec`.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <utility>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::supervisor {

class ControlPeers {
 public:
  // For the container whose init is `init_pid`, served by the calling
  // process.
  static Result<ControlPeers> For(pid_t init_pid);

  // Whether the peer of the accepted connection `conn` may give orders: a
  // process of the supervisor's own user (or root) in the supervisor's own
  // pid namespace, where the runtime's callers are — not in one below it
  // (this container's, or another sandbox's: a state root one sandbox can
  // read holds every container's socket) — and, for a container that
  // shares the supervisor's pid namespace, not in its mount namespace. The
  // error says who was refused and why.
  Result<void> Check(int conn) const;

 private:
  Result<void> CheckPidNamespaceDepth(int conn, pid_t pid) const;
  Result<bool> InContainerPidNamespace(pid_t pid) const;
  Result<bool> InContainerMountNamespace(pid_t pid) const;

  uid_t owner_ = 0;
  // How many pid namespaces the supervisor is in, the host's first.
  std::size_t pid_namespace_depth_ = 0;
  // The container's pid namespace where it has one of its own: whether a
  // pid is in it the namespace itself answers (NS_GET_PID_IN_PIDNS), with
  // no access to the process's /proc files, which a user's supervisor in
  // the container's user namespace does not have to its caller's.
  UniqueFd pid_namespace_;
  // Else the container's mount namespace (device, inode), if not the
  // supervisor's: compared with /proc/PID/ns/mnt.
  std::optional<std::pair<dev_t, ino_t>> mount_namespace_;
};

}  // namespace vigil::supervisor
