#include "supervisor/control_peers.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "base/file.h"
#include "base/strings.h"
#include "base/syscalls.h"

// Linux 6.11; the 6.1 uapi headers lack it.
#ifndef NS_GET_PID_IN_PIDNS
#define NS_GET_PID_IN_PIDNS _IOR(0xb7, 0x8, int)
#endif
// Linux 6.5.
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

namespace vigil::supervisor {
namespace {

Result<struct stat> NamespaceOf(const std::string& process, const char* name) {
  struct stat st {};
  const std::string path = StrCat("/proc/", process, "/ns/", name);
  if (::stat(path.c_str(), &st) != 0) return FailErrno(StrCat("stat ", path));
  return st;
}

bool Same(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// How many pid namespaces `process` ("self" or a pid) is in: the fields of
// its NSpid line (/proc/PID/status, which any process may read).
Result<std::size_t> PidNamespaceDepth(const std::string& process) {
  const std::string path = StrCat("/proc/", process, "/status");
  ASSIGN_OR_RETURN(const std::string status, ReadFile(path, 64 * 1024));
  constexpr std::string_view kKey = "\nNSpid:";
  const std::size_t at = status.find(kKey);
  if (at == std::string::npos) return Fail(StrCat(path, " has no NSpid line"));
  const std::size_t end = status.find('\n', at + 1);
  std::size_t depth = 0;
  bool in_field = false;
  for (char c : std::string_view(status).substr(at + kKey.size(), end - at - kKey.size())) {
    const bool blank = c == ' ' || c == '\t';
    if (!blank && !in_field) ++depth;
    in_field = !blank;
  }
  return depth;
}

}  // namespace

Result<ControlPeers> ControlPeers::For(pid_t init_pid) {
  ControlPeers peers;
  peers.owner_ = ::getuid();
  ASSIGN_OR_RETURN(peers.pid_namespace_depth_, PidNamespaceDepth("self"));
  const std::string init = StrCat(init_pid);
  ASSIGN_OR_RETURN(struct stat own_pid, NamespaceOf("self", "pid"));
  ASSIGN_OR_RETURN(struct stat init_pid_ns, NamespaceOf(init, "pid"));
  if (!Same(own_pid, init_pid_ns)) {
    peers.pid_namespace_.Reset(
        ::open(StrCat("/proc/", init, "/ns/pid").c_str(), O_RDONLY | O_CLOEXEC));
    if (!peers.pid_namespace_) return FailErrno("open the container's pid namespace");
    return peers;
  }
  ASSIGN_OR_RETURN(struct stat own_mount, NamespaceOf("self", "mnt"));
  ASSIGN_OR_RETURN(struct stat init_mount, NamespaceOf(init, "mnt"));
  if (!Same(own_mount, init_mount)) {
    peers.mount_namespace_ = std::pair(init_mount.st_dev, init_mount.st_ino);
  }
  return peers;
}

Result<bool> ControlPeers::InContainerPidNamespace(pid_t pid) const {
  const int in_container = ::ioctl(pid_namespace_.Get(), NS_GET_PID_IN_PIDNS, pid);
  if (in_container > 0) return true;
  if (errno == ESRCH) return false;
  if (errno != ENOTTY && errno != EINVAL) return FailErrno("NS_GET_PID_IN_PIDNS");
  // A kernel before 6.11: the process's own namespace, through /proc.
  ASSIGN_OR_RETURN(struct stat theirs, NamespaceOf(StrCat(pid), "pid"));
  struct stat container {};
  if (::fstat(pid_namespace_.Get(), &container) != 0) return FailErrno("fstat a pid namespace");
  return Same(theirs, container);
}

Result<bool> ControlPeers::InContainerMountNamespace(pid_t pid) const {
  if (!mount_namespace_) return false;
  ASSIGN_OR_RETURN(struct stat theirs, NamespaceOf(StrCat(pid), "mnt"));
  return theirs.st_dev == mount_namespace_->first && theirs.st_ino == mount_namespace_->second;
}

Result<void> ControlPeers::CheckPidNamespaceDepth(int conn, pid_t pid) const {
  // Held while its status is read, so that the pid is still the peer's.
  UniqueFd peer;
  int pidfd = -1;
  socklen_t size = sizeof pidfd;
  if (::getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &size) == 0) peer.Reset(pidfd);
  Result<std::size_t> depth = PidNamespaceDepth(StrCat(pid));
  if (depth && peer && !PidfdSendSignal(peer.Get(), 0)) {
    // Gone meanwhile: its pid may be another's now.
    depth = Fail("the peer has exited");
  }
  if (!depth) {
    return Fail(StrCat("refused a control request from pid ", pid,
                       ": where it runs cannot be told (", depth.error().message, ")"));
  }
  if (*depth > pid_namespace_depth_) {
    return Fail(StrCat("refused a control request from pid ", pid,
                       ", a process in a pid namespace below the runtime's (a sandbox's)"));
  }
  return {};
}

Result<void> ControlPeers::Check(int conn) const {
  ucred peer{};
  socklen_t size = sizeof peer;
  if (::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) {
    return FailErrno("a control request whose sender cannot be told (SO_PEERCRED)");
  }
  if (peer.uid != 0 && peer.uid != owner_) {
    return Fail(StrCat("refused a control request from uid ", peer.uid, " (pid ", peer.pid,
                       "): only the container's owner or root may give orders"));
  }
  // 0: outside the supervisor's pid namespace, where the caller never is.
  if (peer.pid <= 0) {
    return Fail("refused a control request from outside the runtime's pid namespace");
  }
  RETURN_IF_ERROR(CheckPidNamespaceDepth(conn, peer.pid));
  Result<bool> inside =
      pid_namespace_ ? InContainerPidNamespace(peer.pid) : InContainerMountNamespace(peer.pid);
  if (!inside) {
    return Fail(StrCat("refused a control request from pid ", peer.pid,
                       ": whether it is the container's cannot be told (", inside.error().message,
                       ")"));
  }
  if (*inside) {
    return Fail(
        StrCat("refused a control request from pid ", peer.pid, ", a process of the container"));
  }
  return {};
}

}  // namespace vigil::supervisor
