#include "runtime/container/known_roots.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <sstream>

#include "base/file.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil::runtime {
namespace {

// Plenty for the roots of every client on a machine.
constexpr std::size_t kMostListBytes = 64 << 10;

std::string ListPath(const std::string& default_root) {
  return StrCat(default_root, "/", kKnownRootsName);
}

std::vector<std::string> ListedRoots(const std::string& default_root) {
  std::vector<std::string> roots;
  Result<std::string> text = ReadFile(ListPath(default_root), kMostListBytes);
  if (!text) return roots;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with('/')) roots.push_back(line);
  }
  return roots;
}

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

Result<void> RememberRoot(const std::string& default_root, const std::string& root) {
  const std::string absolute = std::filesystem::absolute(root).lexically_normal().string();
  if (absolute == std::filesystem::path(default_root).lexically_normal().string()) return {};
  std::vector<std::string> listed = ListedRoots(default_root);
  if (std::find(listed.begin(), listed.end(), absolute) != listed.end()) return {};
  // Only the host's root writes the host's list, and only root reads it.
  if (::mkdir(default_root.c_str(), 0700) != 0 && errno != EEXIST) {
    return FailErrno(StrCat("create ", default_root));
  }
  // Serialised: two creates in new roots at once must both be listed.
  const std::string lock_path = StrCat(ListPath(default_root), ".lock");
  UniqueFd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock) return FailErrno(StrCat("open ", lock_path));
  while (::flock(lock.Get(), LOCK_EX) != 0) {
    if (errno != EINTR) return FailErrno(StrCat("lock ", lock_path));
  }
  listed = ListedRoots(default_root);
  std::erase_if(listed, [](const std::string& listed_root) { return !IsDirectory(listed_root); });
  listed.push_back(absolute);
  std::string text;
  for (const std::string& listed_root : listed) text += StrCat(listed_root, "\n");
  return WriteFileAtomic(ListPath(default_root), text, 0600, /*overwrite=*/true,
                         Durability::kSkipFsync);
}

std::vector<std::string> KnownRoots(const std::string& first, const std::string& default_root) {
  std::vector<std::string> roots = {first};
  auto add = [&](const std::string& root) {
    if (std::find(roots.begin(), roots.end(), root) == roots.end()) roots.push_back(root);
  };
  add(default_root);
  for (const std::string& root : ListedRoots(default_root)) {
    if (IsDirectory(root)) add(root);
  }
  return roots;
}

}  // namespace vigil::runtime
