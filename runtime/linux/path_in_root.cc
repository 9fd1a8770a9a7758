#include "runtime/linux/path_in_root.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>

#include <cerrno>
#include <string>

#include "base/strings.h"
#include "base/syscalls.h"

namespace vigil::runtime {
namespace {

constexpr std::uint64_t kResolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

std::string_view Parent(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string_view Base(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string FdPath(int fd) { return StrCat("/proc/self/fd/", fd); }

Result<UniqueFd> OpenInRoot(int root_fd, std::string_view path) {
  std::string p(path.empty() ? "/" : path);
  return Openat2(root_fd, p.c_str(), O_PATH, 0, kResolve);
}

Result<UniqueFd> MkdirAllInRoot(int root_fd, std::string_view path) {
  Result<UniqueFd> fd = OpenInRoot(root_fd, path);
  if (fd || fd.error().code != ENOENT) return fd;
  // Create the parent first, then this component inside the verified parent
  // descriptor, so no path string is resolved twice.
  std::string_view base = Base(path);
  if (base == "." || base == ".." || base == "/" || base.empty()) return fd;
  ASSIGN_OR_RETURN(UniqueFd parent, MkdirAllInRoot(root_fd, Parent(path)));
  // An O_PATH descriptor serves as the dirfd of *at calls.
  std::string name(base);
  if (::mkdirat(parent.Get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
    return FailErrno(StrCat("mkdir ", path));
  }
  return Openat2(parent.Get(), name.c_str(), O_PATH, 0, kResolve);
}

Result<UniqueFd> TouchInRoot(int root_fd, std::string_view path) {
  Result<UniqueFd> fd = OpenInRoot(root_fd, path);
  if (fd || fd.error().code != ENOENT) return fd;
  ASSIGN_OR_RETURN(UniqueFd parent, MkdirAllInRoot(root_fd, Parent(path)));
  std::string name(Base(path));
  ASSIGN_OR_RETURN(UniqueFd file, Openat2(parent.Get(), name.c_str(),
                                          O_CREAT | O_WRONLY | O_NOFOLLOW, 0644, kResolve));
  return Openat2(parent.Get(), name.c_str(), O_PATH | O_NOFOLLOW, 0, kResolve);
}

Result<bool> IsSymlinkInRoot(int root_fd, std::string_view path) {
  Result<UniqueFd> parent = OpenInRoot(root_fd, Parent(path));
  if (!parent) {
    if (parent.error().code == ENOENT) return false;
    return tl::unexpected(std::move(parent).error());
  }
  struct stat st {};
  const std::string name(Base(path));
  if (::fstatat(parent->Get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return false;
    return FailErrno(StrCat("stat ", path));
  }
  return S_ISLNK(st.st_mode);
}

}  // namespace vigil::runtime
