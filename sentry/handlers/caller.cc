#include "sentry/handlers/caller.h"

#include <string>
#include <utility>

namespace vigil::sentry {

Result<Caller> CallerOf(HandlerContext& context) {
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  ASSIGN_OR_RETURN(SharedFd root, context.tracee.Root());
  ASSIGN_OR_RETURN(std::string root_path, context.tracee.RootPath());
  return Caller{std::move(thread), std::move(root), std::move(root_path)};
}

}  // namespace vigil::sentry
