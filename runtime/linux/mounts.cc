#include "runtime/linux/mounts.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "base/strings.h"
#include "config/oci/mount_options.h"
#include "config/oci/names.h"
#include "runtime/linux/cgroup_mount.h"
#include "runtime/linux/path_in_root.h"

namespace vigil::runtime {

namespace {

unsigned long LockedFlagsOf(const struct statvfs& st) {
  unsigned long flags = 0;
  if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  return flags;
}

}  // namespace

unsigned long LockedMountFlags(const std::string& path) {
  struct statvfs st {};
  return ::statvfs(path.c_str(), &st) == 0 ? LockedFlagsOf(st) : 0;
}

unsigned long LockedMountFlags(int fd) {
  struct statvfs st {};
  return ::fstatvfs(fd, &st) == 0 ? LockedFlagsOf(st) : 0;
}

MountFlags ParseMountOptions(const std::vector<std::string>& options) {
  MountFlags out;
  for (const std::string& option : options) {
    if (const config::NamedValue* p = config::FindName(config::kPropagationNames, option)) {
      out.propagation = p->value;
    } else if (std::optional<config::RecursiveMountOption> r =
                   config::FindRecursiveMountOption(option)) {
      out.recursive_set = (out.recursive_set & ~r->clear) | r->set;
      out.recursive_clear = (out.recursive_clear & ~r->set) | r->clear;
    } else if (std::optional<config::MountOption> o = config::FindMountOption(option)) {
      if (o->clear) {
        out.flags &= ~o->flags;
      } else {
        out.flags |= o->flags;
      }
      if (option == "bind") out.bind = true;
      if (option == "rbind") out.bind = out.recursive_bind = true;
    } else {
      if (!out.data.empty()) out.data += ',';
      out.data += option;
    }
  }
  out.flags &= ~static_cast<unsigned long>(MS_BIND | MS_REC);
  return out;
}

Result<void> MountInRoot(int root_fd, const config::Mount& mount, bool in_cgroup_namespace,
                         int bind_source) {
  MountFlags f = ParseMountOptions(mount.options);
  if (mount.type == "cgroup" || mount.type == "cgroup2") {
    return MountCgroupFs(root_fd, mount, f.flags, in_cgroup_namespace);
  }
  bool bind = f.bind || mount.type == "bind";
  std::string where = StrCat("mount ", Quote(mount.source), " on ", Quote(mount.destination));

  UniqueFd target;
  if (bind) {
    struct stat st {};
    const int looked =
        bind_source >= 0 ? ::fstat(bind_source, &st) : ::stat(mount.source.c_str(), &st);
    if (looked != 0) return FailErrno(StrCat(where, ": source"));
    ASSIGN_OR_RETURN(target, S_ISDIR(st.st_mode) ? MkdirAllInRoot(root_fd, mount.destination)
                                                 : TouchInRoot(root_fd, mount.destination));
  } else {
    // The kernel's files on a symlink would land wherever it points; runc
    // refuses it in these words, which scripts match.
    if (mount.type == "proc" || mount.type == "sysfs") {
      ASSIGN_OR_RETURN(bool link, IsSymlinkInRoot(root_fd, mount.destination));
      if (link) {
        return Fail(StrCat(where, ": ", mount.type,
                           " must be mounted on ordinary directory, not a symlink"));
      }
    }
    ASSIGN_OR_RETURN(target, MkdirAllInRoot(root_fd, mount.destination));
  }
  std::string target_path = FdPath(target.Get());

  if (bind && bind_source >= 0) {
    if (::move_mount(bind_source, "", target.Get(), "",
                     MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
      return FailErrno(StrCat(where, ": attach the source taken beforehand"));
    }
  } else if (bind) {
    unsigned long flags = MS_BIND | (f.recursive_bind ? MS_REC : 0);
    if (::mount(mount.source.c_str(), target_path.c_str(), nullptr, flags, nullptr) != 0) {
      return FailErrno(where);
    }
  } else {
    const char* data = f.data.empty() ? nullptr : f.data.c_str();
    if (::mount(mount.source.c_str(), target_path.c_str(), mount.type.c_str(), f.flags, data) !=
        0) {
      return FailErrno(StrCat(where, " (type ", mount.type, ")"));
    }
  }
  bool needs_remount = bind && f.flags != 0;
  bool recursive = f.recursive_set != 0 || f.recursive_clear != 0;
  if (!needs_remount && f.propagation == 0 && !recursive) return {};
  // The descriptor still names the directory under the new mount; reopen the
  // destination to reach the mount itself.
  ASSIGN_OR_RETURN(UniqueFd mounted, OpenInRoot(root_fd, mount.destination));
  std::string mounted_path = FdPath(mounted.Get());
  // A bind mount ignores every flag but MS_REC; apply them by remounting.
  if (needs_remount) {
    const unsigned long locked =
        bind_source >= 0 ? LockedMountFlags(bind_source) : LockedMountFlags(mount.source);
    unsigned long remount = MS_BIND | MS_REMOUNT | f.flags | locked;
    if (::mount(nullptr, mounted_path.c_str(), nullptr, remount, nullptr) != 0) {
      return FailErrno(StrCat(where, ": remount with its options"));
    }
  }
  if (f.propagation != 0 &&
      ::mount(nullptr, mounted_path.c_str(), nullptr, f.propagation, nullptr) != 0) {
    return FailErrno(StrCat(where, ": set propagation"));
  }
  if (recursive) {
    mount_attr attr{.attr_set = f.recursive_set, .attr_clr = f.recursive_clear};
    if (::mount_setattr(mounted.Get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0) {
      return FailErrno(StrCat(where, ": apply the recursive options"));
    }
  }
  return {};
}

}  // namespace vigil::runtime
