#include "sentry/handlers/resolve.h"

#include <cerrno>

#include "base/syscalls.h"
#include "sentry/handlers/acting_as.h"

namespace vigil::sentry {

Result<UniqueFd> ResolveAs(const HandlerContext& context, const ThreadStatus& thread, int root,
                           const std::string& path, int flags) {
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(thread, context.sandbox.user_namespace));
  return ResolveInRoot(root, path, flags);
}

Result<UniqueFd> ResolveInRoot(int root, const std::string& path, int flags) {
  return Openat2(root, path.c_str(), flags, 0, kResolveInRoot);
}

config::FileAccess AccessFor(const HandlerContext& context, const std::string& path) {
  if (path.empty()) return config::FileAccess::kWrite;
  return config::FileAccessFor(*context.sandbox.policy, path);
}

int Refusal(config::FileAccess access, bool write) {
  switch (access) {
    case config::FileAccess::kHidden:
      return ENOENT;
    case config::FileAccess::kDenied:
      return EACCES;
    case config::FileAccess::kRead:
      return write ? EACCES : 0;
    case config::FileAccess::kWrite:
      return 0;
  }
  return EACCES;
}

Verdict Failed(const Error& error, Decision decision) {
  return Verdict::Fail(error.code != 0 ? error.code : EIO, decision);
}

}  // namespace vigil::sentry
