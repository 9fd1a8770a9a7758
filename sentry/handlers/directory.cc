// getdents64 and getdents under a file policy: a hidden file is not listed
// either. The sentry reads the directory through a duplicate of the
// workload's own descriptor (the same open file, so the same position),
// drops the entries the policy hides, and writes the rest to the workload's
// buffer. A batch that was all hidden is followed by the next, so an empty
// answer still means the end of the directory.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "config/policy/glob.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

// Where a record keeps its length and its name: linux_dirent64 (ino, off,
// reclen, type, name) and the older linux_dirent (ino, off, reclen, name,
// ..., type in the last byte).
struct Layout {
  std::size_t reclen_at;
  std::size_t name_at;
};
constexpr Layout kDirent64{16, 19};
constexpr Layout kDirent{16, 18};

// A bounce buffer no larger than the workload's: fewer bytes than asked
// for is a normal answer.
constexpr std::size_t kMaxBatch = 64 * 1024;

// Whether some rule may hide an entry of `dir` (else nothing is filtered).
bool MayHideIn(const config::Policy& policy, const std::string& dir) {
  return std::any_of(policy.files.begin(), policy.files.end(), [&](const config::FileRule& rule) {
    return rule.access == config::FileAccess::kHidden &&
           config::GlobMatchesTree(rule.pattern, dir) != config::TreeMatch::kNone;
  });
}

// Keeps the records of `batch` whose names the policy does not hide,
// packed; returns how many bytes are kept and counts what was dropped.
std::size_t Filter(const HandlerContext& context, const Layout& layout, const std::string& dir,
                   std::vector<char>& batch, std::size_t length, int& hidden) {
  std::size_t kept = 0;
  std::size_t at = 0;
  while (at + layout.name_at < length) {
    std::uint16_t reclen = 0;
    std::memcpy(&reclen, batch.data() + at + layout.reclen_at, sizeof reclen);
    if (reclen == 0 || at + reclen > length) break;  // never from a sane kernel
    const char* name = batch.data() + at + layout.name_at;
    const std::string_view entry(name, ::strnlen(name, reclen - layout.name_at));
    const bool dot = entry == "." || entry == "..";
    const std::string path = dir == "/" ? StrCat("/", entry) : StrCat(dir, "/", entry);
    if (!dot && AccessFor(context, path) == config::FileAccess::kHidden) {
      ++hidden;
    } else {
      if (kept != at) std::memmove(batch.data() + kept, batch.data() + at, reclen);
      kept += reclen;
    }
    at += reclen;
  }
  return kept;
}

}  // namespace

Result<Verdict> HandleGetdents(HandlerContext& context) {
  const auto& a = context.event.args;
  const bool legacy = context.event.number == SYS_getdents;
  const Layout& layout = legacy ? kDirent : kDirent64;
  const int fd = static_cast<int>(a[0]);
  const std::uint64_t buffer = a[1];
  // The kernel keeps the count in an int: one past INT_MAX is negative, and
  // no record fits it (EINVAL), whatever the buffer.
  if (static_cast<unsigned int>(a[2]) > static_cast<unsigned int>(INT_MAX)) {
    return Verdict::Fail(EINVAL, Decision::kAllow);
  }
  const std::size_t count = std::min<std::size_t>(static_cast<unsigned int>(a[2]), kMaxBatch);
  ASSIGN_OR_RETURN(UniqueFd directory, context.tracee.Descriptor(fd));
  RETURN_IF_ERROR(context.tracee.Root());
  ASSIGN_OR_RETURN(std::string root_path, context.tracee.RootPath());
  Result<std::string> where = PathInRoot(directory.Get(), root_path);
  if (!where) return Failed(where.error(), Decision::kDeny);
  context.AuditArg("resolved", *where);
  const bool filter = !where->empty() && MayHideIn(*context.sandbox.policy, *where);
  std::vector<char> batch(count);
  int hidden = 0;
  for (;;) {
    const long n = ::syscall(legacy ? SYS_getdents : SYS_getdents64, directory.Get(), batch.data(),
                             batch.size());
    if (n < 0) return Verdict::Fail(errno, Decision::kAllow);
    std::size_t kept = static_cast<std::size_t>(n);
    if (filter) kept = Filter(context, layout, *where, batch, kept, hidden);
    if (kept == 0 && n > 0) continue;  // all hidden: not the end yet
    if (hidden > 0) context.AuditNumber("hidden", static_cast<std::int64_t>(hidden));
    if (!context.tracee.Valid()) return Verdict::Stale();
    if (kept > 0) {
      RETURN_IF_ERROR(context.tracee.Write(buffer, std::as_bytes(std::span(batch.data(), kept))));
    }
    return Verdict::Return(static_cast<std::int64_t>(kept), Decision::kAllow);
  }
}

}  // namespace vigil::sentry
