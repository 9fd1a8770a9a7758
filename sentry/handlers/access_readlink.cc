// access, faccessat, faccessat2, readlink and readlinkat under a file
// policy: resolved as the workload like open, so a hidden file does not
// exist for them either and a read-only one is not writable.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/strings.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/lookup.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

// The file (dirfd, path at `pointer`) names, resolved as the workload and
// decided by the policy (`write`: asked for write access), with its path in
// the container; or the verdict to answer with; or the error of a step that
// failed.
struct Target {
  UniqueFd file;
  std::string path;
  std::string given;  // the path as the workload wrote it
};

// `empty_path`: AT_EMPTY_PATH was given, so "" names the file `dirfd` holds
// (or the working directory).
Result<std::variant<Target, Verdict>> Resolve(HandlerContext& context, const ThreadStatus& thread,
                                              int dirfd, std::uint64_t pointer, int flags,
                                              bool write, bool empty_path = false) {
  Result<std::string> given = CopyPath(context.tracee, pointer);
  const bool empty = !given && given.error().code == ENOENT && empty_path;
  if (!given && !empty) return Failed(given.error(), Decision::kAllow);
  if (given) context.AuditArg("path", *given);
  if (!context.tracee.Valid()) return Verdict::Stale();
  ASSIGN_OR_RETURN(std::string root_path, context.tracee.RootPath());
  WalkedFile file;
  if (empty) {
    ASSIGN_OR_RETURN(file.file, HeldFile(context.tracee, dirfd));
  } else {
    // As stat's lookup: the caller's own /proc links (its descriptors,
    // cwd, root, executable, namespaces) followed to what it holds.
    ASSIGN_OR_RETURN(auto found, LookUp(context, thread, dirfd, *given, (flags & O_NOFOLLOW) == 0));
    if (Verdict* verdict = std::get_if<Verdict>(&found)) return std::move(*verdict);
    file = std::move(std::get<WalkedFile>(found));
  }
  Result<std::string> where = NameInRoot(file, root_path);
  if (!where) return Failed(where.error(), Decision::kDeny);
  context.AuditArg("resolved", *where);
  // A held pipe or socket has no path to decide on: the workload has it.
  if (empty && where->empty()) return Target{std::move(file.file), std::move(*where), ""};
  const config::FileAccess access = AccessFor(context, *where);
  if (int refused = Refusal(access, write)) return Verdict::Fail(refused, Decision::kDeny);
  return Target{std::move(file.file), std::move(*where), given ? *given : ""};
}

// The text of one of procfs's links to the caller's own (`link`, from
// SelfLink): its ids in the container, as the kernel writes it for the
// reader. The sentry, outside the container's pid namespace, has none there.
std::string SelfLinkText(const std::string& link, const ThreadStatus& thread) {
  if (link == "/proc/self") return StrCat(thread.ns_tgid);
  if (link == "/proc/mounts") return "self/mounts";
  if (link == "/proc/net") return "self/net";
  return StrCat(thread.ns_tgid, "/task/", thread.ns_tid);
}

}  // namespace

Result<Verdict> HandleAccess(HandlerContext& context) {
  const auto& a = context.event.args;
  const bool plain = context.event.number == SYS_access;
  const int dirfd = plain ? AT_FDCWD : static_cast<int>(a[0]);
  const std::uint64_t pointer = plain ? a[0] : a[1];
  const int mode = static_cast<int>(plain ? a[1] : a[2]);
  const int flags = context.event.number == SYS_faccessat2 ? static_cast<int>(a[3]) : 0;
  // The kernel's checks, made before it reads the path.
  constexpr int kKnownFlags = AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH;
  if ((mode & ~S_IRWXO) != 0 || (flags & ~kKnownFlags) != 0) {
    return Verdict::Fail(EINVAL, Decision::kAllow);
  }
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  const int follow = (flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0;
  ASSIGN_OR_RETURN(auto resolved, Resolve(context, thread, dirfd, pointer, follow,
                                          (mode & W_OK) != 0, (flags & AT_EMPTY_PATH) != 0));
  if (Verdict* verdict = std::get_if<Verdict>(&resolved)) return std::move(*verdict);
  const Target& target = std::get<Target>(resolved);
  // The kernel checks access(2) with the real ids (with AT_EACCESS, the
  // effective ones): act as those, with the capabilities the kernel would
  // leave (none for a real uid other than 0).
  ThreadStatus as = thread;
  if ((flags & AT_EACCESS) == 0) {
    as.fsuid = thread.ruid;
    as.fsgid = thread.rgid;
    as.cap_effective = thread.ruid == 0 ? thread.cap_permitted : 0;
  }
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(as, context.sandbox.user_namespace));
  if (::faccessat(target.file.Get(), "", mode, AT_EMPTY_PATH | AT_EACCESS) != 0) {
    return Verdict::Fail(errno, Decision::kAllow);
  }
  return Verdict::Return(0, Decision::kAllow);
}

Result<Verdict> HandleReadlink(HandlerContext& context) {
  const auto& a = context.event.args;
  const bool plain = context.event.number == SYS_readlink;
  const int dirfd = plain ? AT_FDCWD : static_cast<int>(a[0]);
  const std::uint64_t pointer = plain ? a[0] : a[1];
  const std::uint64_t buffer = plain ? a[1] : a[2];
  const auto size = static_cast<std::int64_t>(plain ? a[2] : a[3]);
  if (size <= 0) return Verdict::Fail(EINVAL, Decision::kAllow);
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  // An empty path names what `dirfd` holds (the kernel's readlinkat looks
  // up with LOOKUP_EMPTY): a symlink an O_PATH | O_NOFOLLOW open holds.
  ASSIGN_OR_RETURN(auto resolved, Resolve(context, thread, dirfd, pointer, O_NOFOLLOW,
                                          /*write=*/false, /*empty_path=*/true));
  if (Verdict* verdict = std::get_if<Verdict>(&resolved)) return std::move(*verdict);
  const Target& target = std::get<Target>(resolved);
  struct stat st {};
  if (::fstat(target.file.Get(), &st) != 0) return Verdict::Fail(errno, Decision::kAllow);
  std::vector<char> text(PATH_MAX);
  ssize_t n = 0;
  if (std::optional<std::string> link = SelfLink(target.given)) {
    // Rewritten to the caller's own (paths.h): the link's own text.
    const std::string self = SelfLinkText(*link, thread);
    n = static_cast<ssize_t>(self.size());
    std::copy(self.begin(), self.end(), text.begin());
  } else {
    // As readlink(2): EINVAL for a file that is no link, ENOENT when it was
    // named by an empty path.
    if (!S_ISLNK(st.st_mode)) {
      return Verdict::Fail(target.given.empty() ? ENOENT : EINVAL, Decision::kAllow);
    }
    n = ::readlinkat(target.file.Get(), "", text.data(), text.size());
    if (n < 0) return Verdict::Fail(errno, Decision::kAllow);
  }
  const std::size_t copy =
      std::min<std::size_t>(static_cast<std::size_t>(n), static_cast<std::size_t>(size));
  if (!context.tracee.Valid()) return Verdict::Stale();
  RETURN_IF_ERROR(context.tracee.Write(buffer, std::as_bytes(std::span(text.data(), copy))));
  return Verdict::Return(static_cast<std::int64_t>(copy), Decision::kAllow);
}

}  // namespace vigil::sentry
