#include "runtime/linux/landlock.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/log.h"
#include "base/strings.h"
#include "base/syscalls.h"

namespace vigil::runtime {
namespace {

// uapi linux/landlock.h, the parts this file uses, spelled out: the 6.1
// header Debian 12 ships lacks the later rights (config/policy has them).
// The kernel accepts a ruleset attribute shorter than its own (later
// fields read as zero), so this one stops at the filesystem rights.
struct RulesetAttr {
  std::uint64_t handled_access_fs;
};
struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};
constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

int ProbeAbi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi > 0) return static_cast<int>(abi);
  // ENOSYS: not built in; EOPNOTSUPP: built in but not in the lsm= list.
  log::Warning(StrCat("Landlock is not available (", ::strerror(errno),
                      "): the sentry alone enforces the file policy"));
  return 0;
}

// `path` itself, a directory reached without symlinks (an exact grant's).
Result<UniqueFd> OpenExactly(int root, std::string_view path) {
  return Openat2(root, std::string(path).c_str(), O_PATH | O_DIRECTORY, 0,
                 RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

std::string_view Parent(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string_view::npos ? "/" : path.substr(0, slash);
}

}  // namespace

int LandlockAbi() {
  static const int abi = ProbeAbi();
  return abi;
}

// A missing directory's grant goes to its nearest ancestor: a path created
// there later lies beneath it (the set granted stays a superset). The same
// for a file, whose directory holds it, and for a symlink on the way
// (ELOOP from RESOLVE_NO_SYMLINKS).
Result<UniqueFd> OpenGrantDirectory(int root, std::string_view path) {
  std::string current(path);
  while (true) {
    Result<UniqueFd> dir = Openat2(root, current.c_str(), O_PATH | O_DIRECTORY, 0,
                                   RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
    if (dir) return dir;
    const int code = dir.error().code;
    if (current == "/" || (code != ENOENT && code != ENOTDIR && code != ELOOP)) {
      return FailErrno(code, StrCat("landlock: open ", Quote(current)));
    }
    current = std::string(Parent(current));
  }
}

Result<void> ApplyLandlock(const config::LandlockRuleset& ruleset, std::string_view root) {
  if (ruleset.handled == 0) return {};
  ASSIGN_OR_RETURN(UniqueFd root_fd,
                   Openat2(AT_FDCWD, std::string(root).c_str(), O_PATH | O_DIRECTORY, 0, 0));
  const RulesetAttr attr{.handled_access_fs = ruleset.handled};
  long created = ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (created < 0) return FailErrno("landlock_create_ruleset");
  UniqueFd fd(static_cast<int>(created));
  for (const config::LandlockGrant& grant : ruleset.grants) {
    Result<UniqueFd> dir = ruleset.exact ? OpenExactly(root_fd.Get(), grant.path)
                                         : OpenGrantDirectory(root_fd.Get(), grant.path);
    // An exact grant that cannot be made exactly is left out: that only
    // refuses more.
    if (!dir && ruleset.exact) continue;
    if (!dir) return tl::unexpected(dir.error());
    const PathBeneathAttr beneath{.allowed_access = grant.access, .parent_fd = dir->Get()};
    if (::syscall(SYS_landlock_add_rule, fd.Get(), kRulePathBeneath, &beneath, 0) != 0) {
      return FailErrno(StrCat("landlock_add_rule ", Quote(grant.path)));
    }
  }
  if (::syscall(SYS_landlock_restrict_self, fd.Get(), 0) != 0) {
    return FailErrno("landlock_restrict_self");
  }
  return {};
}

}  // namespace vigil::runtime
