#include "runtime/cgroup/fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file.h"
#include "base/strings.h"
#include "base/unique_fd.h"

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
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return FailErrno(StrCat("open ", path));
  DIR* dir = ::fdopendir(fd.Get());
  if (dir == nullptr) return FailErrno(StrCat("opendir ", path));
  (void)fd.Release();  // closedir owns it now
  std::vector<std::string> names;
  while (struct dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    bool is_dir = entry->d_type == DT_DIR;
    if (entry->d_type == DT_UNKNOWN) {
      struct stat st {};
      is_dir = ::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
               S_ISDIR(st.st_mode);
    }
    if (is_dir) names.emplace_back(name);
  }
  ::closedir(dir);
  return names;
}

const Fs& Fs::Real() {
  static const Fs real;
  return real;
}

}  // namespace vigil::runtime::cgroup
