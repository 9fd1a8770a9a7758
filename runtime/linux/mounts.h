// Turning a config.json mount into mount(2) calls inside the rootfs.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "config/oci/spec.h"

namespace vigil::runtime {

// A mount's options split the way mount(2) wants them.
struct MountFlags {
  unsigned long flags = 0;            // MS_* set by the options
  unsigned long propagation = 0;      // MS_SHARED/SLAVE/PRIVATE/UNBINDABLE (| MS_REC)
  std::string data;                   // filesystem options: "size=64m,mode=755"
  std::uint64_t recursive_set = 0;    // MOUNT_ATTR_* from "rro", "rnosuid", ...
  std::uint64_t recursive_clear = 0;  // MOUNT_ATTR_* from "rrw", "rsuid", ...
  bool bind = false;
  bool recursive_bind = false;
};

MountFlags ParseMountOptions(const std::vector<std::string>& options);

// The nosuid/nodev/noexec flags of the mount holding `path`: a bind-remount
// must repeat them, since inside a user namespace the kernel refuses to drop
// these "locked" flags.
unsigned long LockedMountFlags(const std::string& path);
unsigned long LockedMountFlags(int fd);

// Mounts `mount` at its destination inside the rootfs open at `root_fd`,
// creating the target (a directory, or a file for a file bind mount). A
// cgroup mount shows the container's own cgroups (cgroup_mount.h).
// `bind_source`, when not -1, is the bind mount's source taken beforehand
// (bind_sources.h), attached instead of its path.
Result<void> MountInRoot(int root_fd, const config::Mount& mount, bool in_cgroup_namespace,
                         int bind_source = -1);

}  // namespace vigil::runtime
