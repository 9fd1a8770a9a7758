// Whole-file reads and writes for small documents (config.json, state.json).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"

namespace vigil {

// Reads `path` into memory, refusing files larger than `max_bytes`.
Result<std::string> ReadFile(const std::string& path, std::size_t max_bytes);

// The target of symlink `path` (one readlink(2), no lstat first: links in
// /proc, which report no size, up to PATH_MAX).
Result<std::string> ReadLink(const std::string& path);

// Writes `contents` to `path` atomically: a temporary file in the same
// directory, fsync, then rename over `path`. Fails if `path` exists and
// `overwrite` is false.
Result<void> WriteFileAtomic(const std::string& path, std::string_view contents, int mode,
                             bool overwrite);

// Writes `contents` to an existing file in one write(2), without creating or
// truncating it: the way /proc and /sys files (uid_map, cgroup knobs) take it.
Result<void> WriteExisting(const std::string& path, std::string_view contents);

}  // namespace vigil
