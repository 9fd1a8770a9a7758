// Paths named by a workload thread, as the file handlers take them: copied
// once (bounded by PATH_MAX), made absolute in the container, with the
// names that mean "the caller itself" (/proc/self, /dev/fd/N, ...) rewritten
// to the caller's own ids, since the sentry is not the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/core/thread_status.h"
#include "sentry/core/tracee.h"

namespace vigil::sentry {

// The NUL-terminated string at `pointer`: EFAULT for a bad pointer,
// ENAMETOOLONG past PATH_MAX, ENOENT when empty (as the kernel answers).
Result<std::string> CopyPath(TraceeMemory& tracee, std::uint64_t pointer);

// The first `max` bytes at most of the NUL-terminated string at `pointer`;
// `complete` says whether its NUL came within them. EFAULT for a bad
// pointer.
Result<std::string> CopyString(TraceeMemory& tracee, std::uint64_t pointer, std::size_t max,
                               bool& complete);

// `path` (relative to descriptor `dirfd`, or to the working directory for
// AT_FDCWD) as an absolute path from the thread's root (the container's
// unless it chrooted), to walk from Tracee::Root(), with the caller's own
// names rewritten (RewriteSelf) unless `rewrite_self` is false (a walk
// that may not follow symlinks must meet /proc/self as the link it is).
Result<std::string> ContainerPath(Tracee& tracee, const ThreadStatus& thread, int dirfd,
                                  const std::string& path, bool rewrite_self = true);

// /proc/self -> /proc/TGID, /proc/thread-self -> /proc/TGID/task/TID,
// /proc/mounts and /proc/net -> /proc/TGID/mounts and /net, /dev/fd/N and /dev/std{in,out,err} ->
// /proc/TGID/fd/N (ids in the container's pid namespace); "//" collapsed.
std::string RewriteSelf(const std::string& path, const ThreadStatus& thread);

// The link itself when `given` is exactly /proc/self, /proc/thread-self,
// /proc/mounts or /proc/net (slashes collapsed), which RewriteSelf turns
// into the caller's own:
// those two paths normalised, for the calls that do not follow a last
// symlink (lstat, readlink). nullopt for any other path.
std::optional<std::string> SelfLink(const std::string& given);

// N when `path` is the caller's own /proc/TGID/fd/N (or task/TID/fd/N).
std::optional<int> OwnDescriptor(const std::string& path, const ThreadStatus& thread);

// Where a path through the caller's own /proc/TGID/{cwd,root,exe,ns/TYPE}
// (or task/TID/...) leads, for a walk that follows that link: the sentry's
// own walk never follows a magic link (RESOLVE_NO_MAGICLINKS), so it
// follows these itself, to what the thread holds.
struct OwnLinkTarget {
  // For cwd and root: the path to walk instead, in the container — the
  // working directory's path (Tracee::WorkingDirectoryPath) or "/", then
  // what followed the link. Walked from the root like any path, so what
  // it reaches is decided like any file.
  std::string path;
  // For exe and ns/TYPE: the executable or the namespace itself
  // (Tracee::Executable, Tracee::Namespace).
  UniqueFd file;
  // For ns/TYPE: the link's own path, which the policy decides on (a
  // namespace is no file of the container's).
  std::optional<std::string> decided_as;
};

// nullopt if `path` (RewriteSelf's) does not go through one of those links,
// or ends at one and `follow_last` is false (lstat, O_NOFOLLOW: the link
// itself). ENOTDIR for a path that goes on past exe. /proc/TGID/cwd is
// taken to be the calling thread's, which it is unless a thread was
// cloned without CLONE_FS.
Result<std::optional<OwnLinkTarget>> FollowOwnLink(Tracee& tracee, const ThreadStatus& thread,
                                                   const std::string& path, bool follow_last);

// What an empty path with AT_EMPTY_PATH names: the workload's descriptor
// `dirfd`, or its working directory for AT_FDCWD.
Result<UniqueFd> HeldFile(Tracee& tracee, int dirfd);

// The workload's descriptor `fd` for a call that acts on the open file
// itself (fchmod, fchown, the f*xattr family): EBADF for an O_PATH one, as
// the kernel answers (only the ptrace platform installs them).
Result<UniqueFd> OpenFileOf(Tracee& tracee, int fd);

// Where the open file `fd` is, as a path in the container whose root is at
// `root_path` (Tracee::RootPath) — a readlink of /proc/self/fd; EXDEV if it
// is outside; empty for a file that has no path (a pipe, a socket, an
// anonymous inode).
Result<std::string> PathInRoot(int fd, const std::string& root_path);

}  // namespace vigil::sentry
