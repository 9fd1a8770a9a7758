// Whole-file reads and writes for small documents (config.json, state.json).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"

namespace vigil {

// Reads `path` into memory, refusing files larger than `max_bytes` and
// anything but a regular file (a FIFO is not waited on).
Result<std::string> ReadFile(const std::string& path, std::size_t max_bytes);

// The same for a regular file or a pipe (`exec -p <(...)`, /dev/fd/N): a
// pipe is read to its end, a FIFO waited on for a writer, as runc reads
// them.
Result<std::string> ReadFileOrPipe(const std::string& path, std::size_t max_bytes);

// The target of symlink `path` (one readlink(2), no lstat first: links in
// /proc, which report no size, up to PATH_MAX).
Result<std::string> ReadLink(const std::string& path);

// Whether WriteFileAtomic waits for the contents to reach the disk before
// it renames. Runtime state (state.json, pid files) describes processes a
// reboot ends anyway, so it skips the fsync, as runc and crun do: where the
// state dir is not on tmpfs each fsync costs about a millisecond of every
// create, start and delete. Files a user keeps take kFsync.
enum class Durability { kFsync, kSkipFsync };

// Writes `contents` to `path` atomically: a temporary file in the same
// directory, fsync (unless told to skip it), then rename over `path`, so a
// reader sees the old contents or the new, never part. Fails if `path`
// exists and `overwrite` is false.
Result<void> WriteFileAtomic(const std::string& path, std::string_view contents, int mode,
                             bool overwrite, Durability durability = Durability::kFsync);

// Writes `contents` to an existing file in one write(2), without creating or
// truncating it: the way /proc and /sys files (uid_map, cgroup knobs) take it.
Result<void> WriteExisting(const std::string& path, std::string_view contents);

}  // namespace vigil
