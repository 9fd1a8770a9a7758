// What the file handlers share: resolving a path in the container as the
// workload, and what the file policy answers for the file it resolved to.
#pragma once

#include <linux/openat2.h>

#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/policy/policy.h"
#include "sentry/core/thread_status.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {

// Inside the root, and never through a /proc magic link (DESIGN.md §2 rule 4).
inline constexpr std::uint64_t kResolveInRoot = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

// openat2(root, path, flags) as the workload: its search permission on
// every directory of the path is checked, as the kernel would for it.
Result<UniqueFd> ResolveAs(const HandlerContext& context, const ThreadStatus& thread, int root,
                           const std::string& path, int flags);

// The same for a caller that already acts as the workload (ActingAs).
Result<UniqueFd> ResolveInRoot(int root, const std::string& path, int flags);

// What the file policy grants to `path` (PathInRoot's): a file without a
// path, which only a descriptor the workload holds can name, is not the
// policy's to govern.
config::FileAccess AccessFor(const HandlerContext& context, const std::string& path);

// The errno the file policy answers for `access` (ENOENT hidden, EACCES
// denied, EACCES for a write to read-only), 0 if allowed.
int Refusal(config::FileAccess access, bool write);

// A verdict for a failed step: its errno (EIO if it has none).
Verdict Failed(const Error& error, Decision decision);

}  // namespace vigil::sentry
