// A path the workload names, looked up as it would be and decided: the
// shared first half of the handlers that only query what a path names
// (stat, statfs, inotify_add_watch). The answer is a descriptor of the
// file itself (O_PATH), on which the handler then acts.
#pragma once

#include <string>
#include <variant>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {

// `given` relative to `dirfd` (AT_FDCWD or the workload's descriptor),
// resolved in the container as the workload, following a final symlink
// when `follow` says so; the caller's /proc/self and own descriptors and
// executable as the kernel would name them. Audited as "resolved". A
// refusal of the file policy (hidden: ENOENT, denied: EACCES) or a failed
// lookup is the verdict to answer with; a step that failed before the
// lookup, the error.
Result<std::variant<UniqueFd, Verdict>> LookUpDecided(HandlerContext& context, int dirfd,
                                                      const std::string& given, bool follow);

// The first step of LookUpDecided alone: the file `given` names (with the
// name the policy decides it by, when the walk knows it), or the verdict
// of a failed lookup; nothing decided or audited yet.
Result<std::variant<WalkedFile, Verdict>> LookUp(HandlerContext& context,
                                                 const ThreadStatus& thread, int dirfd,
                                                 const std::string& given, bool follow);

}  // namespace vigil::sentry
