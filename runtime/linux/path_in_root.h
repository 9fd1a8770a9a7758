// Opening paths inside the container's rootfs without ever leaving it: every
// lookup goes through openat2(RESOLVE_IN_ROOT), so a symlink in the image that
// points at /etc or ../../ resolves inside the rootfs (CVE-2021-30465 was a
// symlink race on a mount target).
#pragma once

#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::runtime {

// Opens `path` (absolute or relative, taken relative to `root_fd`) as an
// O_PATH descriptor, symlinks resolved inside the root.
Result<UniqueFd> OpenInRoot(int root_fd, std::string_view path);

// Makes sure directory `path` exists inside the root, creating missing
// components (mode 0755) one at a time on verified parents; returns an O_PATH
// descriptor of it.
Result<UniqueFd> MkdirAllInRoot(int root_fd, std::string_view path);

// Makes sure `path` exists inside the root as a non-directory (creating an
// empty file, and its parents, if missing): the target of a file bind mount.
Result<UniqueFd> TouchInRoot(int root_fd, std::string_view path);

// Whether the last component of `path` is itself a symlink (its parents
// resolved inside the root); false when it or a parent does not exist.
Result<bool> IsSymlinkInRoot(int root_fd, std::string_view path);

// "/proc/self/fd/N": the path mount(2) takes to act on an opened target.
std::string FdPath(int fd);

}  // namespace vigil::runtime
