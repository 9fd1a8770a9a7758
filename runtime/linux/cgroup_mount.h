// The "cgroup" mount of a container (/sys/fs/cgroup): the host's layout
// (cgroup/hierarchy.h) repeated with only the container's own cgroups
// visible. A mount of the rootfs's, beside the others (mounts.h).
#pragma once

#include "base/result.h"
#include "config/oci/spec.h"

namespace vigil::runtime {

// Mounts a tmpfs at the target and, per host hierarchy, either a fresh
// cgroup filesystem (inside a cgroup namespace, where the kernel roots it at
// the namespace) or a bind of the container's own cgroup directory. `flags`
// are the mount's MS_* options (ro, nosuid, ...).
Result<void> MountCgroupFs(int root_fd, const config::Mount& mount, unsigned long flags,
                           bool in_cgroup_namespace);

}  // namespace vigil::runtime
