// Where the open handler resolves a workload's path from, and with which
// resolve flags: openat's way (the path made absolute in the container,
// walked from its root with RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), plus
// what openat2's RESOLVE_* flags ask of the walk — they only ever narrow it.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/core/thread_status.h"
#include "sentry/core/tracee.h"

namespace vigil::sentry {

struct OpenWalk {
  // The directory the walk starts from: the container's root, or (for a
  // walk scoped to it) the workload's dirfd or working directory, checked
  // to be the container's own directory at the path the workload sees.
  SharedFd base;
  // What to resolve from `base`: absolute in the container from the root,
  // else the workload's path as written.
  std::string path;
  // The sentry's openat2 resolve flags for every step of the walk.
  std::uint64_t resolve = 0;
  bool from_root = true;

  // openat2(base, `path`, flags, resolve): `path` is `this->path` or one
  // derived from it (a parent, a symlink's target). A walk from a dirfd
  // refuses an absolute path unless RESOLVE_IN_ROOT makes it relative to
  // the dirfd (EXDEV, as RESOLVE_BENEATH answers): resolved from the
  // sentry's own root, it would leave the container.
  // `narrowing` adds resolve flags (RESOLVE_NO_SYMLINKS, see WalkNaming).
  Result<UniqueFd> Open(const std::string& at, int flags, std::uint64_t narrowing = 0) const;
};

// The walk for `given` (relative to `dirfd`) with the workload's resolve
// flags `resolve` (0 for open and openat):
//  - RESOLVE_BENEATH or RESOLVE_IN_ROOT: from the dirfd, which the kernel
//    then keeps the walk beneath; an absolute path under RESOLVE_BENEATH
//    is EXDEV, as natively;
//  - RESOLVE_NO_XDEV with a relative path: from the dirfd too, since the
//    way from the root to it may cross mounts the workload's walk does not;
//  - otherwise from the container's root `root`, with RESOLVE_NO_XDEV,
//    RESOLVE_NO_SYMLINKS and RESOLVE_CACHED added; under RESOLVE_NO_SYMLINKS
//    the caller's own names (/proc/self, /dev/fd) are not rewritten, since
//    natively they are symlinks it may not follow.
// The sentry's RESOLVE_NO_MAGICLINKS stays in every case.
Result<OpenWalk> PlanOpenWalk(Tracee& tracee, const ThreadStatus& thread, const SharedFd& root,
                              int dirfd, const std::string& given, std::uint64_t resolve);

// The path of `path`'s parent directory and its last component, as a walk
// resolves them: "a/b" -> "a", "b"; "b" -> ".", "b"; "/b" -> "/", "b".
std::string ParentOf(const std::string& path);
std::string LastComponentOf(const std::string& path);

}  // namespace vigil::sentry
