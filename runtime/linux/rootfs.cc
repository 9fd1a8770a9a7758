#include "runtime/linux/rootfs.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/strings.h"
#include "base/unique_fd.h"
#include "config/oci/names.h"
#include "runtime/linux/bind_sources.h"
#include "runtime/linux/devices.h"
#include "runtime/linux/mounts.h"
#include "runtime/linux/path_in_root.h"

namespace vigil::runtime {
namespace {

// The container's mount events must not reach the host: while the rootfs
// is assembled, the whole tree is a recursive slave (host mounts still
// propagate in), whatever linux.rootfsPropagation asks for. That applies
// to the container's own root once it is entered (ApplyRootPropagation):
// asked for earlier, "shared" would make the host's peers see the
// container's mounts, and pivot_root refuses a shared parent anyway.
// A /dev of its own (not bound from the host) that config.json wants
// read-only: its mounts, devices and symlinks still have to go in.
bool IsReadOnlyOwnDev(const config::Mount& mount) {
  const MountFlags f = ParseMountOptions(mount.options);
  return mount.destination == "/dev" && mount.type != "bind" && !f.bind &&
         (f.flags & MS_RDONLY) != 0;
}

// Mounted writable first, made read-only by RemountReadOnly once /dev is
// complete (runc's order).
config::Mount Writable(config::Mount mount) {
  std::erase(mount.options, "ro");
  return mount;
}

Result<void> RemountReadOnly(int root_fd, const config::Mount& mount) {
  const MountFlags f = ParseMountOptions(mount.options);
  ASSIGN_OR_RETURN(UniqueFd mounted, OpenInRoot(root_fd, mount.destination));
  const char* data = f.data.empty() ? nullptr : f.data.c_str();
  if (::mount(nullptr, FdPath(mounted.Get()).c_str(), nullptr, MS_REMOUNT | f.flags, data) != 0) {
    return FailErrno(StrCat("remount ", mount.destination, " read-only"));
  }
  return {};
}

Result<void> IsolatePropagation() {
  if (::mount(nullptr, "/", nullptr, MS_SLAVE | MS_REC, nullptr) != 0) {
    return FailErrno("make / a recursive slave");
  }
  return {};
}

Result<void> ApplyRootPropagation(const config::Spec& spec) {
  const std::string& requested = spec.linux_spec ? spec.linux_spec->rootfs_propagation : "";
  const config::NamedValue* propagation = config::FindName(config::kPropagationNames, requested);
  if (propagation == nullptr) return {};
  if (::mount(nullptr, "/", nullptr, propagation->value, nullptr) != 0) {
    return FailErrno(StrCat("set linux.rootfsPropagation ", Quote(requested), " on /"));
  }
  return {};
}

Result<void> PivotInto(const std::string& rootfs) {
  UniqueFd old_root(::open("/", O_DIRECTORY | O_PATH | O_CLOEXEC));
  if (!old_root) return FailErrno("open /");
  if (::chdir(rootfs.c_str()) != 0) return FailErrno(StrCat("chdir ", rootfs));
  // pivot_root(".", ".") stacks the old root on top of the new one; it is
  // then detached, with no directory needed for it inside the image.
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return FailErrno("pivot_root");
  // Into the old root itself: "." from the new root's directory would name
  // the new root mount, and making that a slave would strip the container's
  // own mounts of a shared propagation they asked for.
  if (::fchdir(old_root.Get()) != 0) return FailErrno("fchdir to the old root");
  if (::mount(nullptr, ".", nullptr, MS_SLAVE | MS_REC, nullptr) != 0) {
    return FailErrno("make the old root a slave");
  }
  if (::umount2(".", MNT_DETACH) != 0) return FailErrno("detach the old root");
  if (::chdir("/") != 0) return FailErrno("chdir /");
  return {};
}

Result<void> ChrootInto(const std::string& rootfs) {
  if (::chdir(rootfs.c_str()) != 0) return FailErrno(StrCat("chdir ", rootfs));
  if (::mount(rootfs.c_str(), "/", nullptr, MS_MOVE, nullptr) != 0) {
    return FailErrno("move the rootfs onto /");
  }
  if (::chroot(".") != 0) return FailErrno("chroot");
  if (::chdir("/") != 0) return FailErrno("chdir /");
  return {};
}

Result<void> MaskPath(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};  // nothing to hide
    return FailErrno(StrCat("masked path ", path));
  }
  int rc = S_ISDIR(st.st_mode)
               ? ::mount("tmpfs", path.c_str(), "tmpfs", MS_RDONLY, "size=0,mode=0555")
               : ::mount("/dev/null", path.c_str(), nullptr, MS_BIND, nullptr);
  if (rc != 0) return FailErrno(StrCat("mask ", path));
  return {};
}

Result<void> MakeReadonly(const std::string& path, bool must_exist) {
  if (::mount(path.c_str(), path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
    if (errno == ENOENT && !must_exist) return {};
    return FailErrno(StrCat("read-only path ", path));
  }
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC | LockedMountFlags(path);
  if (::mount(nullptr, path.c_str(), nullptr, flags, nullptr) != 0) {
    return FailErrno(StrCat("remount ", path, " read-only"));
  }
  return {};
}

// Creates process.cwd when the image lacks it, as runc does: inside the new
// root, so ".." and symlinks cannot leave it, and before the root turns
// read-only.
Result<void> MakeCwd(const std::string& cwd) {
  std::string path;
  for (std::size_t start = 0; start < cwd.size();) {
    std::size_t end = cwd.find('/', start);
    if (end == std::string::npos) end = cwd.size();
    if (end > start) {
      path += "/" + cwd.substr(start, end - start);
      if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        return FailErrno(StrCat("create cwd ", cwd));
      }
    }
    start = end + 1;
  }
  return {};
}

}  // namespace

Result<void> MountRootfs(const config::Spec& spec, const RootfsOptions& options) {
  RETURN_IF_ERROR(IsolatePropagation());
  const std::string& rootfs = spec.root->path;
  // pivot_root needs the new root to be a mount point.
  if (::mount(rootfs.c_str(), rootfs.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
    return FailErrno(StrCat("bind-mount rootfs ", rootfs));
  }
  UniqueFd root(::open(rootfs.c_str(), O_DIRECTORY | O_PATH | O_CLOEXEC));
  if (!root) return FailErrno(StrCat("open rootfs ", rootfs));

  for (std::size_t i = 0; i < spec.mounts.size(); ++i) {
    const config::Mount& mount = spec.mounts[i];
    if (std::find(options.premounted.begin(), options.premounted.end(), mount.destination) !=
        options.premounted.end()) {
      continue;
    }
    int source = i < options.bind_sources.size() ? options.bind_sources[i] : -1;
    // A bind of a path of the image, not taken beforehand: resolved inside
    // the rootfs here, so that none of the image's symlinks leads out.
    UniqueFd in_image;
    if (source < 0 && (mount.type == "bind" || ParseMountOptions(mount.options).bind) &&
        InsideRootfs(mount.source, rootfs)) {
      ASSIGN_OR_RETURN(in_image, TakeBindSource(mount, rootfs));
      source = in_image.Get();
    }
    RETURN_IF_ERROR(MountInRoot(root.Get(), IsReadOnlyOwnDev(mount) ? Writable(mount) : mount,
                                options.in_cgroup_namespace, source));
  }
  // Default devices go into a fresh /dev (a tmpfs); a /dev bound from the
  // host is kept as it is.
  bool own_dev = false;
  for (const config::Mount& m : spec.mounts) {
    if (m.destination == "/dev" && m.type != "bind" && !ParseMountOptions(m.options).bind) {
      own_dev = true;
    }
  }
  if (own_dev) {
    const std::vector<config::Device> none;
    RETURN_IF_ERROR(CreateDevices(root.Get(),
                                  DevicesFor(spec.linux_spec ? spec.linux_spec->devices : none),
                                  options.in_user_namespace));
    RETURN_IF_ERROR(CreateDevSymlinks(root.Get()));
  } else if (spec.linux_spec && !spec.linux_spec->devices.empty()) {
    RETURN_IF_ERROR(CreateDevices(root.Get(), spec.linux_spec->devices, options.in_user_namespace));
  }
  for (const config::Mount& m : spec.mounts) {
    if (IsReadOnlyOwnDev(m)) RETURN_IF_ERROR(RemountReadOnly(root.Get(), m));
  }
  return {};
}

Result<void> EnterRootfs(const config::Spec& spec, const RootfsOptions& options) {
  RETURN_IF_ERROR(options.no_pivot ? ChrootInto(spec.root->path) : PivotInto(spec.root->path));
  return ApplyRootPropagation(spec);
}

Result<void> FinishRootfs(const config::Spec& spec) {
  if (spec.process) RETURN_IF_ERROR(MakeCwd(spec.process->cwd));
  if (spec.linux_spec) {
    for (const std::string& path : spec.linux_spec->masked_paths) {
      RETURN_IF_ERROR(MaskPath(path));
    }
    for (const std::string& path : spec.linux_spec->readonly_paths) {
      RETURN_IF_ERROR(MakeReadonly(path, /*must_exist=*/false));
    }
  }
  if (spec.root->readonly) {
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | LockedMountFlags("/");
    if (::mount(nullptr, "/", nullptr, flags, nullptr) != 0) {
      return FailErrno("remount the root read-only");
    }
  }
  return {};
}

}  // namespace vigil::runtime
