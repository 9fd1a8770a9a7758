#include "runtime/linux/namespaces.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>

#include "base/file.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil::runtime {
namespace {

using config::NamespaceType;

int FlagOf(NamespaceType type) {
  switch (type) {
    case NamespaceType::kPid:
      return CLONE_NEWPID;
    case NamespaceType::kNetwork:
      return CLONE_NEWNET;
    case NamespaceType::kMount:
      return CLONE_NEWNS;
    case NamespaceType::kIpc:
      return CLONE_NEWIPC;
    case NamespaceType::kUts:
      return CLONE_NEWUTS;
    case NamespaceType::kUser:
      return CLONE_NEWUSER;
    case NamespaceType::kCgroup:
      return CLONE_NEWCGROUP;
    case NamespaceType::kTime:
      return CLONE_NEWTIME;
  }
  return 0;
}

// "/proc/<pid>/ns/<name>" -> pid, else 0.
pid_t ProcPidOf(std::string_view path) {
  if (!path.starts_with("/proc/")) return 0;
  path.remove_prefix(6);
  pid_t pid = 0;
  auto [end, ec] = std::from_chars(path.data(), path.data() + path.size(), pid);
  if (ec != std::errc() ||
      std::string_view(end, path.data() + path.size() - end).find("/ns/") != 0) {
    return 0;
  }
  return pid;
}

// Clients join another container's namespaces through the pid its runtime
// reported: /proc/PID/ns/net for docker --network container:X, a podman
// pod's infra container, CRI sandboxes. vigil reports its supervisor, which
// lives in the host's namespaces, so such a path must lead to the
// supervisor's child, the container's init, or the joiner would land in the
// host's namespaces.
Result<std::string> ResolveNamespacePath(const std::string& path) {
  pid_t pid = ProcPidOf(path);
  if (pid <= 0) return path;
  Result<std::string> comm = ReadFile(StrCat("/proc/", pid, "/comm"), 64);
  if (!comm || *comm != StrCat(kSupervisorName, "\n")) return path;
  Result<std::string> children = ReadFile(StrCat("/proc/", pid, "/task/", pid, "/children"), 4096);
  pid_t init = 0;
  if (children) std::from_chars(children->data(), children->data() + children->size(), init);
  if (init <= 0) {
    return Fail(StrCat(path, " names a vigil container that is not running"));
  }
  return StrCat("/proc/", init, path.substr(path.find("/ns/")));
}

Result<void> Join(const config::Namespace& ns) {
  ASSIGN_OR_RETURN(std::string path, ResolveNamespacePath(ns.path));
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return FailErrno(StrCat("open ", config::NameOf(ns.type), " namespace ", ns.path));
  if (::setns(fd.Get(), FlagOf(ns.type)) != 0) {
    return FailErrno(StrCat("join ", config::NameOf(ns.type), " namespace ", ns.path));
  }
  return {};
}

}  // namespace

std::uint64_t CloneFlags(const config::Linux& linux_spec) {
  std::uint64_t flags = 0;
  for (const config::Namespace& ns : linux_spec.namespaces) {
    if (ns.path.empty() && ns.type != NamespaceType::kCgroup && ns.type != NamespaceType::kTime) {
      flags |= FlagOf(ns.type);
    }
  }
  return flags;
}

int NamespaceFlags(const config::Linux& linux_spec) {
  int flags = 0;
  for (const config::Namespace& ns : linux_spec.namespaces) flags |= FlagOf(ns.type);
  return flags;
}

bool CreatesNamespace(const config::Linux& linux_spec, NamespaceType type) {
  const config::Namespace* ns = linux_spec.FindNamespace(type);
  return ns != nullptr && ns->path.empty();
}

bool IsHostsNetworkNamespace(const std::string& path) {
  struct stat theirs {};
  struct stat own {};
  return ::stat(path.c_str(), &theirs) == 0 && ::stat("/proc/self/ns/net", &own) == 0 &&
         theirs.st_dev == own.st_dev && theirs.st_ino == own.st_ino;
}

namespace {

Result<UniqueFd> OwnNamespace(const char* name) {
  UniqueFd fd(::open(StrCat("/proc/self/ns/", name).c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return FailErrno(StrCat("open this process's ", name, " namespace"));
  return fd;
}

}  // namespace

Result<void> ChildNamespaces::Restore() {
  if (own_pid_ && ::setns(own_pid_.Get(), CLONE_NEWPID) != 0) {
    return FailErrno("return to the runtime's pid namespace for children");
  }
  if (own_time_ && ::setns(own_time_.Get(), CLONE_NEWTIME) != 0) {
    return FailErrno("return to the runtime's time namespace for children");
  }
  own_pid_.Reset();
  own_time_.Reset();
  return {};
}

Result<ChildNamespaces> PrepareChildNamespaces(const config::Linux& linux_spec) {
  ChildNamespaces own;
  if (const config::Namespace* pid = linux_spec.FindNamespace(NamespaceType::kPid);
      pid != nullptr && !pid->path.empty()) {
    ASSIGN_OR_RETURN(own.own_pid_, OwnNamespace("pid"));
    RETURN_IF_ERROR(Join(*pid));
  }
  const config::Namespace* time = linux_spec.FindNamespace(NamespaceType::kTime);
  if (time == nullptr) return own;
  ASSIGN_OR_RETURN(own.own_time_, OwnNamespace("time"));
  if (!time->path.empty()) {
    RETURN_IF_ERROR(Join(*time));
    return own;
  }
  if (::unshare(CLONE_NEWTIME) != 0) return FailErrno("create time namespace");
  std::string offsets;
  for (const auto& [clock, offset] : linux_spec.time_offsets) {
    offsets += StrCat(clock, " ", offset.secs, " ", offset.nanosecs, "\n");
  }
  if (!offsets.empty()) {
    RETURN_IF_ERROR_WRAP(WriteExisting("/proc/self/timens_offsets", offsets),
                         "set time namespace offsets");
  }
  return own;
}

Result<void> JoinNamespaces(const config::Linux& linux_spec) {
  if (const config::Namespace* user = linux_spec.FindNamespace(NamespaceType::kUser);
      user != nullptr && !user->path.empty()) {
    RETURN_IF_ERROR(Join(*user));
  }
  for (const config::Namespace& ns : linux_spec.namespaces) {
    if (ns.path.empty() || ns.type == NamespaceType::kUser || ns.type == NamespaceType::kPid) {
      continue;
    }
    RETURN_IF_ERROR(Join(ns));
  }
  return {};
}

Result<void> UnshareLate(const config::Linux& linux_spec) {
  const config::Namespace* cgroup = linux_spec.FindNamespace(NamespaceType::kCgroup);
  if (cgroup == nullptr || !cgroup->path.empty()) return {};
  if (::unshare(CLONE_NEWCGROUP) != 0) return FailErrno("create cgroup namespace");
  return {};
}

bool IsHostRoot() {
  if (::geteuid() != 0) return false;
  // The initial namespace maps every id to itself.
  Result<std::string> map = ReadFile("/proc/self/uid_map", 4096);
  if (!map) return false;
  unsigned long inside = 1, outside = 1, count = 0;
  return std::sscanf(map->c_str(), "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
         outside == 0 && count == 4294967295UL;
}

}  // namespace vigil::runtime
