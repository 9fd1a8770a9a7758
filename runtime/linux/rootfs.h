// Building the container's filesystem view inside its new mount namespace:
// mounts in order, devices, pivot_root, masked and read-only paths.
#pragma once

#include "base/result.h"
#include "config/oci/spec.h"

namespace vigil::runtime {

struct RootfsOptions {
  bool no_pivot = false;             // `create --no-pivot`: chroot instead (ramdisk roots)
  bool in_user_namespace = false;    // mknod is refused there: bind devices
  bool in_cgroup_namespace = false;  // cgroup mounts are fresh, not binds
};

// Runs in the container init, in its own mount namespace. On return the
// process's root and cwd are the container's "/".
Result<void> SetupRootfs(const config::Spec& spec, const RootfsOptions& options);

// After the process's own /proc is mounted: masks linux.maskedPaths and makes
// linux.readonlyPaths read-only, then (root.readonly) the root itself.
Result<void> FinishRootfs(const config::Spec& spec);

}  // namespace vigil::runtime
