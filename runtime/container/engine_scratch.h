// Scratch directories the engine can reach. Under a policy with a read-only
// root (agent) each directory the policy lets be written as a whole (/tmp,
// /var/tmp) is a tmpfs of the container's own (config/policy/
// container_setup.h). An engine copies files into and out of a container
// through its rootfs on the host — `docker cp f ID:/tmp/` writes
// ROOTFS/tmp/f from dockerd's mount namespace — which a tmpfs mounted in the
// container's namespace would hide from both sides.
//
// So where the rootfs is a mount of its own (the engine's per-container
// overlay: Docker, containerd, podman), the runtime mounts those tmpfs at
// their places in the rootfs on the host before the container's mount
// namespace exists: the container inherits them with the rootfs, and the
// engine sees the same files. They stay what they were: a tmpfs made for
// this container with the policy's size, nosuid, nodev, noexec. A rootfs
// that is a plain directory may be shared by several containers (a
// platform's unpacked image), so there the tmpfs stay private to each
// container's namespace. So does a container with a user namespace (its
// scratch must belong to it), a place that already holds a mount, and a
// foreground `vigil run` (create.cc).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/oci/spec.h"

namespace vigil::runtime {

// Mounts the scratch tmpfs of `spec` (the ones ApplyPolicyToSpec added)
// at their places in its rootfs, in the caller's (the host's) mount
// namespace, where the rule above allows. Returns the destinations mounted,
// for the init to leave alone (RootfsOptions::premounted) and for
// UnmountEngineScratch; on failure nothing stays mounted.
Result<std::vector<std::string>> MountEngineScratch(const config::Spec& spec);

// Unmounts `destinations` of the rootfs at `rootfs` again: each only if a
// vigil scratch tmpfs is still mounted there (the engine may have removed
// the rootfs first). Best effort: a failure is logged, not returned.
void UnmountEngineScratch(const std::string& rootfs, const std::vector<std::string>& destinations);

}  // namespace vigil::runtime
