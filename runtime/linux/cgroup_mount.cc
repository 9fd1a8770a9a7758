#include "runtime/linux/cgroup_mount.h"

#include <sys/mount.h>

#include "base/strings.h"
#include "runtime/cgroup/hierarchy.h"
#include "runtime/linux/path_in_root.h"

namespace vigil::runtime {
namespace {

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

}  // namespace

Result<void> MountCgroupFs(int root_fd, const config::Mount& mount, unsigned long flags,
                           bool in_cgroup_namespace) {
  ASSIGN_OR_RETURN(std::vector<cgroup::Hierarchy> hierarchies, cgroup::DiscoverHierarchies());
  std::string where = StrCat("mount cgroups on ", Quote(mount.destination));
  ASSIGN_OR_RETURN(UniqueFd target, MkdirAllInRoot(root_fd, mount.destination));
  unsigned long tmpfs_flags =
      (flags & ~static_cast<unsigned long>(MS_RDONLY)) | MS_NOSUID | MS_NODEV | MS_NOEXEC;
  if (::mount("tmpfs", FdPath(target.Get()).c_str(), "tmpfs", tmpfs_flags, "mode=755") != 0) {
    return FailErrno(where);
  }
  for (const cgroup::Hierarchy& h : hierarchies) {
    std::string name = h.mount_point.substr(h.mount_point.rfind('/') + 1);
    ASSIGN_OR_RETURN(UniqueFd dir, MkdirAllInRoot(root_fd, StrCat(mount.destination, "/", name)));
    std::string dir_path = FdPath(dir.Get());
    int rc;
    if (in_cgroup_namespace) {
      rc = h.v2 ? ::mount("cgroup2", dir_path.c_str(), "cgroup2", flags, nullptr)
                : ::mount("cgroup", dir_path.c_str(), "cgroup", flags, Join(h.controllers).c_str());
    } else {
      std::string source = h.mount_point + h.own_path;
      rc = ::mount(source.c_str(), dir_path.c_str(), nullptr, MS_BIND, nullptr);
      if (rc == 0 && flags != 0) {
        ASSIGN_OR_RETURN(UniqueFd mounted,
                         OpenInRoot(root_fd, StrCat(mount.destination, "/", name)));
        rc = ::mount(nullptr, FdPath(mounted.Get()).c_str(), nullptr, MS_BIND | MS_REMOUNT | flags,
                     nullptr);
      }
    }
    if (rc != 0) return FailErrno(StrCat(where, ": ", name));
  }
  if (flags & MS_RDONLY) {
    ASSIGN_OR_RETURN(UniqueFd mounted, OpenInRoot(root_fd, mount.destination));
    if (::mount(nullptr, FdPath(mounted.Get()).c_str(), nullptr,
                MS_REMOUNT | tmpfs_flags | MS_RDONLY, "mode=755") != 0) {
      return FailErrno(StrCat(where, ": make read-only"));
    }
  }
  return {};
}

}  // namespace vigil::runtime
