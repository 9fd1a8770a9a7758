// Reading a directory's entries, for the few places that list one (the
// host's root and home for `vigil do`, a cgroup's children, the state root).
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

#include "base/result.h"

namespace vigil {

struct DirectoryEntry {
  std::string name;
  mode_t type = 0;  // the entry's own file type (S_IFDIR, S_IFLNK, ...): links not followed

  [[nodiscard]] bool IsDirectory() const { return S_ISDIR(type); }
  [[nodiscard]] bool IsSymlink() const { return S_ISLNK(type); }
};

// The entries of directory `path` but "." and "..", sorted by name. The
// type comes from readdir where the file system gives it, else from
// lstat; an entry that vanishes before its lstat is left out.
Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path);

}  // namespace vigil
