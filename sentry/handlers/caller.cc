#include "sentry/handlers/caller.h"

#include "sentry/handlers/resolve.h"

namespace vigil::sentry {

std::variant<Caller, Verdict> CallerOf(HandlerContext& context) {
  Result<ThreadStatus> thread = context.tracee.Status();
  if (!thread) return Failed(thread.error(), Decision::kAllow);
  Result<SharedFd> root = context.tracee.Root();
  if (!root) return Failed(root.error(), Decision::kAllow);
  Result<std::string> root_path = context.tracee.RootPath();
  if (!root_path) return Failed(root_path.error(), Decision::kAllow);
  return Caller{std::move(*thread), std::move(*root), std::move(*root_path)};
}

}  // namespace vigil::sentry
