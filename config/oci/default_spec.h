// The config.json that `vigil spec` writes: the same shape `runc spec`
// writes, so bundles move between runtimes unchanged.
#pragma once

#include <sys/types.h>

#include "config/oci/spec.h"

namespace vigil::config {

// A container running `sh` on a read-only "rootfs" directory with the
// usual mounts, namespaces and masked paths.
Spec DefaultSpec();

// DefaultSpec adapted to an unprivileged caller with `uid` and `gid`: a user
// namespace mapping them to root, no network namespace, /sys bind-mounted,
// no cgroup mount and no resource limits (as `runc spec --rootless`).
Spec RootlessSpec(uid_t uid, gid_t gid);

}  // namespace vigil::config
