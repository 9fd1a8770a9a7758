// What a file handler needs of the calling thread before it acts as it:
// its credentials, and the root its paths resolve from, as a descriptor and
// as the sentry sees it. Read once per call, in this order; a failure is
// the handler's error, answered as any step that failed.
#pragma once

#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/core/thread_status.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {

struct Caller {
  ThreadStatus thread;
  SharedFd root;
  std::string root_path;
};

// The caller of context.event.
Result<Caller> CallerOf(HandlerContext& context);

}  // namespace vigil::sentry
