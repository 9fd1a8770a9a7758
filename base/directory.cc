#include "base/directory.h"

#include <dirent.h>
#include <fcntl.h>

#include <algorithm>

#include "base/scope_guard.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil {
namespace {

// readdir's d_type as a st_mode file type; 0 where the file system did not say.
mode_t TypeOf(unsigned char d_type) {
  switch (d_type) {
    case DT_DIR:
      return S_IFDIR;
    case DT_LNK:
      return S_IFLNK;
    case DT_REG:
      return S_IFREG;
    case DT_CHR:
      return S_IFCHR;
    case DT_BLK:
      return S_IFBLK;
    case DT_FIFO:
      return S_IFIFO;
    case DT_SOCK:
      return S_IFSOCK;
    default:
      return 0;
  }
}

}  // namespace

Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return FailErrno(StrCat("open ", path));
  DIR* dir = ::fdopendir(fd.Get());
  if (dir == nullptr) return FailErrno(StrCat("opendir ", path));
  (void)fd.Release();  // closedir owns it now
  ScopeGuard close_dir([dir] { ::closedir(dir); });
  std::vector<DirectoryEntry> entries;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    DirectoryEntry listed{.name = std::string(name), .type = TypeOf(entry->d_type)};
    if (listed.type == 0) {
      struct stat st {};
      if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      listed.type = st.st_mode & S_IFMT;
    }
    entries.push_back(std::move(listed));
  }
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
  return entries;
}

}  // namespace vigil
