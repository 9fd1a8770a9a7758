// What the file handlers share: resolving a path in the container as the
// workload, and what the file policy answers for the file it resolved to.
#pragma once

#include <linux/openat2.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/policy/policy.h"
#include "sentry/core/thread_status.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {

// Inside the root, and never through a /proc magic link (docs/design.md, rule 4).
inline constexpr std::uint64_t kResolveInRoot = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

// openat2(root, path, flags) as the workload: its search permission on
// every directory of the path is checked, as the kernel would for it.
Result<UniqueFd> ResolveAs(const HandlerContext& context, const ThreadStatus& thread, int root,
                           const std::string& path, int flags, std::uint64_t narrowing = 0);

// The same for a caller that already acts as the workload (ActingAs);
// `narrowing` adds resolve flags (RESOLVE_NO_SYMLINKS).
Result<UniqueFd> ResolveInRoot(int root, const std::string& path, int flags,
                               std::uint64_t narrowing = 0);

// A file a walk reached, and its path in the container when the walk itself
// tells it (empty: only PathInRoot can).
struct WalkedFile {
  UniqueFd file;
  std::optional<std::string> name;
};

// `path` normalised ("//" and "." dropped) when it can name what a walk
// along it reaches without a readlink: absolute, and no "..", whose
// kernel answer is a directory's parent, not the name before it.
std::optional<std::string> PlainName(const std::string& path);

// open(narrowing) walks `path` from the container's root (`from_root`:
// the thread has not chrooted). A walk along a plain path that meets no
// symlink (RESOLVE_NO_SYMLINKS) passes through exactly the names the path
// gives, so it names the file it reaches: no readlink of /proc/self/fd,
// which costs about a tenth of a mediated stat. A walk that meets one
// fails with ELOOP and is made again as asked, its file named by
// PathInRoot later.
template <typename Open>
Result<WalkedFile> WalkNaming(const std::string& path, bool from_root, Open open) {
  std::optional<std::string> name = from_root ? PlainName(path) : std::nullopt;
  if (name) {
    Result<UniqueFd> plain = open(RESOLVE_NO_SYMLINKS);
    if (plain) return WalkedFile{std::move(*plain), std::move(name)};
    if (plain.error().code != ELOOP) return tl::unexpected(plain.error());
  }
  Result<UniqueFd> walked = open(0);
  if (!walked) return tl::unexpected(walked.error());
  return WalkedFile{std::move(*walked), std::nullopt};
}

// The walked file's path in the container: its name, else PathInRoot's.
Result<std::string> NameInRoot(const WalkedFile& walked, const std::string& root_path);

// Where the open file `file` is, as a path in the container (PathInRoot),
// audited as `audit_as`, and what the file policy answers for reading it, or
// writing it when `write`: the path, or the verdict to refuse with (also
// for a file the sentry cannot name in the container).
std::variant<std::string, Verdict> DecideOnFile(HandlerContext& context, int file,
                                                const std::string& root_path, bool write,
                                                std::string_view audit_as = "resolved");

// What the file policy grants to `path` (PathInRoot's): a file without a
// path, which only a descriptor the workload holds can name, is not the
// policy's to govern.
config::FileAccess AccessFor(const HandlerContext& context, const std::string& path);

// Whether a file call the sentry has decided and audited is then left to
// the kernel: under a policy that refuses no file (config::RestrictsFiles
// false), whatever a path leads to when the kernel resolves it may be read
// and written, so the kernel makes the call as the workload, with what no
// call of the sentry's reproduces exactly: its credentials (a descriptor's
// opener, for linkat), limits, device cgroup and fsuid (docs/security.md,
// "Where the sentry lets the kernel act").
bool KernelMakesFileCalls(const HandlerContext& context);

// The errno the file policy answers for `access` (ENOENT hidden, EACCES
// denied, EACCES for a write to read-only), 0 if allowed.
int Refusal(config::FileAccess access, bool write);

// A verdict for a failed step: its errno (EIO if it has none).
Verdict Failed(const Error& error, Decision decision);

// `path` (absolute) normalised lexically: "//" and "." dropped, ".." taking
// the name before it. What a walk would reach only when no symlink lies on
// the way; for naming a path the kernel found nothing at.
std::string LexicalName(const std::string& path);

// The verdict for a lookup of `path` (absolute in the container, as the
// workload named it: ContainerPath's) that failed with `error`. The
// workload gets the kernel's errno either way; when the path, taken
// lexically, is one the policy hides or denies, the failure is a refusal
// too, and audited as one: what the mounts keep out of the sandbox
// (`vigil do`'s credential stores) leaves no file for the rules to meet,
// and a search for it would otherwise leave no trace. Such a refusal
// audits the path it decided on as "resolved".
Verdict FailedLookup(HandlerContext& context, const Error& error, const std::string& path);

}  // namespace vigil::sentry
