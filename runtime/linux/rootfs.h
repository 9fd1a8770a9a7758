// Building the container's filesystem view inside its new mount namespace:
// mounts in order, devices, pivot_root, masked and read-only paths.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/oci/spec.h"

namespace vigil::runtime {

struct RootfsOptions {
  bool no_pivot = false;             // `create --no-pivot`: chroot instead (ramdisk roots)
  bool in_user_namespace = false;    // mknod is refused there: bind devices
  bool in_cgroup_namespace = false;  // cgroup mounts are fresh, not binds
  // Per spec.mounts entry, a bind source taken before the user namespace
  // (bind_sources.h), or -1; empty for none.
  std::vector<int> bind_sources;
  // Destinations of spec.mounts already mounted in the rootfs on the host
  // (the scratch tmpfs an engine can reach: runtime/container/
  // engine_scratch.h), which come with the rootfs and are left alone.
  std::vector<std::string> premounted;
};

// Runs in the container init, in its own mount namespace: makes the rootfs
// a mount point and mounts config.json's mounts and the devices into it.
Result<void> MountRootfs(const config::Spec& spec, const RootfsOptions& options);

// Then (after the createRuntime and createContainer hooks): makes the rootfs
// the process's "/" with pivot_root (chroot with --no-pivot).
Result<void> EnterRootfs(const config::Spec& spec, const RootfsOptions& options);

// After the process's own /proc is mounted: creates process.cwd if the image
// lacks it, masks linux.maskedPaths and makes linux.readonlyPaths read-only,
// then (root.readonly) the root itself.
Result<void> FinishRootfs(const config::Spec& spec);

}  // namespace vigil::runtime
