#include "sentry/handlers/open_walk.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>

#include <cerrno>

#include "base/syscalls.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

// Whether `a` and `b` are the same file reached through the same mount.
bool SameFile(int a, int b) {
  struct statx x {};
  struct statx y {};
  constexpr unsigned int kMask = STATX_INO | STATX_MNT_ID;
  if (::statx(a, "", AT_EMPTY_PATH, kMask, &x) != 0 ||
      ::statx(b, "", AT_EMPTY_PATH, kMask, &y) != 0) {
    return false;
  }
  if ((x.stx_mask & STATX_MNT_ID) == 0 || (y.stx_mask & STATX_MNT_ID) == 0) return false;
  return x.stx_dev_major == y.stx_dev_major && x.stx_dev_minor == y.stx_dev_minor &&
         x.stx_ino == y.stx_ino && x.stx_mnt_id == y.stx_mnt_id;
}

// The workload's dirfd (or working directory) as the base of a walk scoped
// to it: the container's own directory at the path the workload sees for
// it, found from the root as the sentry and checked to be the very file,
// on the very mount, that the workload holds. So a descriptor of something
// outside the container (passed in from elsewhere, or opened before the
// container was entered) is no base for reaching what lies beneath it.
Result<UniqueFd> ScopedBase(Tracee& tracee, int root, int dirfd) {
  ASSIGN_OR_RETURN(UniqueFd held, HeldFile(tracee, dirfd));
  ASSIGN_OR_RETURN(std::string where, dirfd == AT_FDCWD ? tracee.WorkingDirectoryPath()
                                                        : tracee.DescriptorPath(dirfd));
  if (where.ends_with(" (deleted)")) return FailErrno(ENOENT, "the base directory is gone");
  // A pipe, a socket, an anonymous inode: nothing can be looked up in it.
  if (!where.starts_with('/')) return FailErrno(ENOTDIR, "the base is not a directory");
  ASSIGN_OR_RETURN(UniqueFd found, ResolveInRoot(root, where, O_PATH));
  if (!SameFile(held.Get(), found.Get())) {
    return FailErrno(ENOENT, "the base is not the container's file at its path");
  }
  return found;
}

}  // namespace

Result<UniqueFd> OpenWalk::Open(const std::string& at, int flags, std::uint64_t narrowing) const {
  if (!from_root && at.starts_with('/') && (resolve & RESOLVE_IN_ROOT) == 0) {
    return FailErrno(EXDEV, "an absolute path in a walk scoped to a directory");
  }
  return Openat2(base.Get(), at.c_str(), static_cast<std::uint64_t>(flags), 0, resolve | narrowing);
}

Result<OpenWalk> PlanOpenWalk(Tracee& tracee, const ThreadStatus& thread, const SharedFd& root,
                              int dirfd, const std::string& given, std::uint64_t resolve) {
  const bool scoped = (resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT)) != 0;
  const bool absolute = given.starts_with('/');
  if ((resolve & RESOLVE_BENEATH) && absolute) {
    return FailErrno(EXDEV, "RESOLVE_BENEATH with an absolute path");
  }
  if (scoped || ((resolve & RESOLVE_NO_XDEV) && !absolute)) {
    ASSIGN_OR_RETURN(UniqueFd base, ScopedBase(tracee, root.Get(), dirfd));
    return OpenWalk{.base = SharedFd(std::move(base)),
                    .path = given,
                    .resolve = resolve | RESOLVE_NO_MAGICLINKS,
                    .from_root = false};
  }
  const bool rewrite = (resolve & RESOLVE_NO_SYMLINKS) == 0;
  ASSIGN_OR_RETURN(std::string path, ContainerPath(tracee, thread, dirfd, given, rewrite));
  constexpr std::uint64_t kNarrowing = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_CACHED;
  return OpenWalk{.base = root,
                  .path = std::move(path),
                  .resolve = kResolveInRoot | (resolve & kNarrowing),
                  .from_root = true};
}

std::string ParentOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string LastComponentOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace vigil::sentry
