#include "runtime/linux/namespaces.h"

#include <fcntl.h>
#include <sched.h>

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

Result<void> Join(const config::Namespace& ns) {
  UniqueFd fd(::open(ns.path.c_str(), O_RDONLY | O_CLOEXEC));
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

bool CreatesUserNamespace(const config::Linux& linux_spec) {
  const config::Namespace* user = linux_spec.FindNamespace(NamespaceType::kUser);
  return user != nullptr && user->path.empty();
}

Result<void> PrepareChildNamespaces(const config::Linux& linux_spec) {
  if (const config::Namespace* pid = linux_spec.FindNamespace(NamespaceType::kPid);
      pid != nullptr && !pid->path.empty()) {
    RETURN_IF_ERROR(Join(*pid));
  }
  const config::Namespace* time = linux_spec.FindNamespace(NamespaceType::kTime);
  if (time == nullptr) return {};
  if (!time->path.empty()) return Join(*time);
  if (::unshare(CLONE_NEWTIME) != 0) return FailErrno("create time namespace");
  std::string offsets;
  for (const auto& [clock, offset] : linux_spec.time_offsets) {
    offsets += StrCat(clock, " ", offset.secs, " ", offset.nanosecs, "\n");
  }
  if (!offsets.empty()) {
    RETURN_IF_ERROR_WRAP(WriteExisting("/proc/self/timens_offsets", offsets),
                         "set time namespace offsets");
  }
  return {};
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

}  // namespace vigil::runtime
