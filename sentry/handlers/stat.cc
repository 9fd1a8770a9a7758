// stat, lstat, newfstatat, statx and statfs under a file policy: resolved
// and decided like open, so a hidden file does not exist here either; the
// sentry stats the file it resolved to (or its filesystem) and writes the
// answer. A call on a
// descriptor the workload holds (AT_EMPTY_PATH with "", which is how libc
// implements fstat) needs no decision: the workload has the file already.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include <cerrno>
#include <optional>
#include <variant>

#include "sentry/handlers/answer.h"
#include "sentry/handlers/lookup.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

struct StatRequest {
  int dirfd = AT_FDCWD;
  std::uint64_t path = 0;
  int flags = 0;
  std::uint64_t buffer = 0;
  unsigned int mask = 0;  // statx only
};

StatRequest RequestOf(const SyscallEvent& event) {
  const auto& a = event.args;
  switch (event.number) {
    case SYS_stat:
      return {AT_FDCWD, a[0], 0, a[1]};
    case SYS_lstat:
      return {AT_FDCWD, a[0], AT_SYMLINK_NOFOLLOW, a[1]};
    case SYS_newfstatat:
      return {static_cast<int>(a[0]), a[1], static_cast<int>(a[3]), a[2]};
    default:  // statx(dirfd, path, flags, mask, buffer)
      return {static_cast<int>(a[0]), a[1], static_cast<int>(a[2]), a[4],
              static_cast<unsigned int>(a[3])};
  }
}

// Stats `file` (any descriptor, O_PATH included) as the request asks and
// writes the answer to the workload.
Verdict Answer(HandlerContext& context, const StatRequest& request, int file) {
  if (context.event.number == SYS_statx) {
    struct statx result {};
    const int sync = request.flags & AT_STATX_SYNC_TYPE;
    if (::statx(file, "", AT_EMPTY_PATH | sync, request.mask, &result) != 0) {
      return Verdict::Fail(errno, Decision::kAllow);
    }
    return AnswerWithObject(context, request.buffer, result, Decision::kAllow);
  }
  struct stat result {};
  if (::fstat(file, &result) != 0) return Verdict::Fail(errno, Decision::kAllow);
  return AnswerWithObject(context, request.buffer, result, Decision::kAllow);
}

// EINVAL for flags (or a statx mask) the kernel would refuse, which it
// does before it reads the path; 0 otherwise.
int FlagsRefusal(int number, const StatRequest& request) {
  constexpr int kKnown = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE;
  if (number != SYS_newfstatat && number != SYS_statx) return 0;
  if ((request.flags & ~kKnown) != 0) return EINVAL;
  if (number == SYS_statx && ((request.flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE ||
                              (request.mask & STATX__RESERVED) != 0)) {
    return EINVAL;
  }
  return 0;
}

}  // namespace

Result<Verdict> HandleStat(HandlerContext& context) {
  const StatRequest request = RequestOf(context.event);
  if (int refused = FlagsRefusal(context.event.number, request)) {
    return Verdict::Fail(refused, Decision::kAllow);
  }
  Result<std::string> given = CopyPath(context.tracee, request.path);
  const bool empty = !given && given.error().code == ENOENT;
  if (!given && !(empty && (request.flags & AT_EMPTY_PATH))) {
    return Failed(given.error(), Decision::kAllow);
  }
  if (!context.tracee.Valid()) return Verdict::Stale();
  if (empty) {
    // fstat: the workload's own descriptor (or its working directory).
    ASSIGN_OR_RETURN(UniqueFd held, HeldFile(context.tracee, request.dirfd));
    return Answer(context, request, held.Get());
  }
  context.AuditArg("path", *given);
  ASSIGN_OR_RETURN(auto file, LookUpDecided(context, request.dirfd, *given,
                                            (request.flags & AT_SYMLINK_NOFOLLOW) == 0));
  if (Verdict* refused = std::get_if<Verdict>(&file)) return std::move(*refused);
  return Answer(context, request, std::get<UniqueFd>(file).Get());
}

Result<Verdict> HandleStatfs(HandlerContext& context) {
  ASSIGN_OR_RETURN(std::string given, CopyPath(context.tracee, context.event.args[0]));
  if (!context.tracee.Valid()) return Verdict::Stale();
  context.AuditArg("path", given);
  ASSIGN_OR_RETURN(auto file, LookUpDecided(context, AT_FDCWD, given, /*follow=*/true));
  if (Verdict* refused = std::get_if<Verdict>(&file)) return std::move(*refused);
  struct statfs result {};
  if (::fstatfs(std::get<UniqueFd>(file).Get(), &result) != 0) {
    return Verdict::Fail(errno, Decision::kAllow);
  }
  return AnswerWithObject(context, context.event.args[1], result, Decision::kAllow);
}

}  // namespace vigil::sentry
