#include "supervisor/control_peers.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "base/strings.h"

// Linux 6.11; the 6.1 uapi headers lack it.
#ifndef NS_GET_PID_IN_PIDNS
#define NS_GET_PID_IN_PIDNS _IOR(0xb7, 0x8, int)
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

}  // namespace

Result<ControlPeers> ControlPeers::For(pid_t init_pid) {
  ControlPeers peers;
  peers.owner_ = ::getuid();
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
