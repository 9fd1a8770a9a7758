// The Landlock ruleset that backs a vigil policy's file rules with the
// kernel: defence in depth for what the workload's own kernel does without
// the sentry (execve's lookups, fast-path syscalls such as bind(2) of a unix
// socket path), so that a bug in a handler, or a syscall the sentry lets
// through, does not get past the file policy.
//
// The ruleset is an over-approximation of what the policy allows: it never
// refuses what the policy allows; the sentry still makes the exact
// decision. docs/policy.md ("Defence in depth: Landlock") says what is
// mapped and what is not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/oci/spec.h"
#include "config/policy/policy.h"

namespace vigil::config {

// Landlock's filesystem access rights (uapi linux/landlock.h). Defined here
// because Debian 12's header is from Linux 6.1 and lacks the later ones.
inline constexpr std::uint64_t kLandlockExecute = 1ULL << 0;
inline constexpr std::uint64_t kLandlockWriteFile = 1ULL << 1;
inline constexpr std::uint64_t kLandlockReadFile = 1ULL << 2;
inline constexpr std::uint64_t kLandlockReadDir = 1ULL << 3;
inline constexpr std::uint64_t kLandlockRemoveDir = 1ULL << 4;
inline constexpr std::uint64_t kLandlockRemoveFile = 1ULL << 5;
inline constexpr std::uint64_t kLandlockMakeChar = 1ULL << 6;
inline constexpr std::uint64_t kLandlockMakeDir = 1ULL << 7;
inline constexpr std::uint64_t kLandlockMakeReg = 1ULL << 8;
inline constexpr std::uint64_t kLandlockMakeSock = 1ULL << 9;
inline constexpr std::uint64_t kLandlockMakeFifo = 1ULL << 10;
inline constexpr std::uint64_t kLandlockMakeBlock = 1ULL << 11;
inline constexpr std::uint64_t kLandlockMakeSym = 1ULL << 12;
inline constexpr std::uint64_t kLandlockRefer = 1ULL << 13;     // ABI 2
inline constexpr std::uint64_t kLandlockTruncate = 1ULL << 14;  // ABI 3
inline constexpr std::uint64_t kLandlockIoctlDev = 1ULL << 15;  // ABI 5

// The newest Landlock ABI version this code knows (Linux 6.15); a newer
// kernel's extra rights are simply not asked for.
inline constexpr int kLandlockNewestAbi = 7;

// The filesystem rights Landlock ABI version `abi` knows (0 for none).
std::uint64_t LandlockFsRights(int abi);

// `rights` by the names Landlock's documentation gives them, lower case
// and comma-separated ("write_file,truncate"); "writes" for exactly
// kLandlockWriteClass, as the policy's write rules map to it.
std::string LandlockRightNames(std::uint64_t rights);

// What the file policy's write rules map to: every change to a file or a
// directory's entries (the rights ABI 1-3 define, without EXECUTE and the
// read rights).
inline constexpr std::uint64_t kLandlockWriteClass =
    kLandlockWriteFile | kLandlockTruncate | kLandlockRemoveDir | kLandlockRemoveFile |
    kLandlockMakeChar | kLandlockMakeDir | kLandlockMakeReg | kLandlockMakeSock |
    kLandlockMakeFifo | kLandlockMakeBlock | kLandlockMakeSym | kLandlockRefer;

// One rule of the ruleset: `access` granted beneath the directory `path`
// (absolute, in the container). When `path` does not exist in the
// container, whoever applies the rule grants it beneath its nearest existing
// ancestor instead, so that the granted set stays a superset.
struct LandlockGrant {
  std::string path;
  std::uint64_t access = 0;
  bool operator==(const LandlockGrant&) const = default;
};

// A ruleset: the rights it handles (refused unless granted) and the grants.
// `handled` of 0 means no ruleset at all.
struct LandlockRuleset {
  std::uint64_t handled = 0;
  std::vector<LandlockGrant> grants;  // sorted by path, none beneath another with the same rights
  // Grants are exactly their directories: one that is missing, or reached
  // through a symlink, is left out rather than moved to an ancestor (which
  // would widen it).
  bool exact = false;
  bool operator==(const LandlockRuleset&) const = default;
};

// The directory beneath which lies every path `pattern` (a glob CheckGlob
// accepts) can match, named without wildcards: "/tmp/**" -> "/tmp",
// "/home/*/.ssh/**" -> "/home", "/dev/null" -> "/dev", "/x" -> "/".
std::string LiteralDirectory(std::string_view pattern);

// The ruleset for `policy` on a kernel with Landlock ABI `abi` (rights the
// ABI lacks are left out; an ABI below 1 gives no ruleset).
LandlockRuleset LandlockRulesFor(const Policy& policy, int abi);

// The directories beneath which the kernel can enforce the policy's write
// rules exactly, so that the sentry may leave a write it decided to the
// kernel (docs/security.md, "Where the sentry lets the kernel act"): the
// directory of each "DIR/**" write rule under which the policy lets every
// path be written (UniformAccessBeneath), when DIR is the destination of
// a tmpfs or devpts mount in `mounts` — a filesystem made for the
// container, whose files no other path reaches. None when the policy does
// not mediate files (every open for writing must reach the sentry).
std::vector<std::string> ExactWriteTrees(const Policy& policy, const std::vector<Mount>& mounts);

// What an open can do to a file beyond reading it: write it, truncate it,
// create it (a regular file: O_CREAT makes nothing else).
inline constexpr std::uint64_t kLandlockOpenWrites =
    kLandlockWriteFile | kLandlockTruncate | kLandlockMakeReg;

// The ruleset that holds every open for writing to `trees` (a second
// Landlock layer, on top of LandlockRulesFor's): kLandlockOpenWrites
// handled, granted beneath exactly those directories. Only what an open
// can do, so that what the kernel does without the sentry (a unix
// socket's bind, say) is bound by the policy's own layer alone. Empty
// below ABI 3, which is the first to handle truncation (an O_TRUNC open
// would pass unchecked), or without trees.
LandlockRuleset ExactWriteRuleset(const std::vector<std::string>& trees, int abi);

}  // namespace vigil::config
