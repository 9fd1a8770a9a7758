// Device nodes in the container's /dev: the defaults every container gets
// (null, zero, full, random, urandom, tty), those config.json lists, and the
// usual symlinks (/dev/fd, /dev/stdin, /dev/ptmx, ...).
#pragma once

#include <vector>

#include "base/result.h"
#include "config/oci/linux.h"

namespace vigil::runtime {

// The default devices plus `extra`; an entry of `extra` replaces a default
// with the same path.
std::vector<config::Device> DevicesFor(const std::vector<config::Device>& extra);

// Creates each device inside the rootfs open at `root_fd`. With `bind` (in a
// user namespace, where mknod is not allowed) the host's node is
// bind-mounted instead.
Result<void> CreateDevices(int root_fd, const std::vector<config::Device>& devices, bool bind);

// /dev/fd, /dev/stdin, /dev/stdout, /dev/stderr and /dev/ptmx symlinks.
Result<void> CreateDevSymlinks(int root_fd);

}  // namespace vigil::runtime
