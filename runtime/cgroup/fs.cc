#include "runtime/cgroup/fs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/directory.h"
#include "base/file.h"
#include "base/strings.h"

namespace vigil::runtime::cgroup {

Result<std::string> Fs::Read(const std::string& path) const { return ReadFile(path, 1 << 20); }

Result<void> Fs::Write(const std::string& path, std::string_view value) const {
  return WriteExisting(path, value);
}

bool Fs::Exists(const std::string& path) const { return ::access(path.c_str(), F_OK) == 0; }

Result<bool> Fs::Mkdir(const std::string& path) const {
  if (::mkdir(path.c_str(), 0755) == 0) return true;
  if (errno == EEXIST) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return false;
    return FailErrno(EEXIST, StrCat("mkdir ", path));
  }
  return FailErrno(StrCat("mkdir ", path));
}

Result<void> Fs::Rmdir(const std::string& path) const {
  if (::rmdir(path.c_str()) != 0) return FailErrno(StrCat("rmdir ", path));
  return {};
}

Result<std::vector<std::string>> Fs::Subdirs(const std::string& path) const {
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries, ListDirectory(path));
  std::vector<std::string> names;
  for (const DirectoryEntry& entry : entries) {
    if (entry.IsDirectory()) names.push_back(entry.name);
  }
  return names;
}

const Fs& Fs::Real() {
  static const Fs real;
  return real;
}

}  // namespace vigil::runtime::cgroup
