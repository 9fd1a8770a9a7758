#include <cerrno>
#include <utility>

#include "sentry/handlers/handler.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

Result<Verdict> Run(Handler handler, HandlerContext& context) {
  switch (handler) {
#define VIGIL_HANDLER(id, ...) \
  case Handler::k##id:         \
    return Handle##id(context);
#include "sentry/table/handlers.def"
    case Handler::kNone:
      break;
  }
  return Verdict::Fail(ENOSYS, Decision::kDeny);
}

}  // namespace

Verdict Handle(Handler handler, HandlerContext& context) {
  Result<Verdict> verdict = Run(handler, context);
  if (verdict) return std::move(*verdict);
  // The one place a handler's error becomes an answer. A step that failed
  // (reading the workload's memory, a lookup, acting as the workload) is
  // the kernel's answer to a call the policy allowed, not a refusal by
  // policy: kAllow, with the step's errno (EIO if none). A handler that
  // refuses returns that verdict itself.
  return Failed(verdict.error(), Decision::kAllow);
}

// Forms whose arguments the sentry would have to decode on top (the
// *xattrat and file_*attr structs, file handles): ENOSYS, on which callers
// fall back to an older syscall the sentry serves, or to paths.
Result<Verdict> HandleFallBack(HandlerContext& /*context*/) {
  return Verdict::Fail(ENOSYS, Decision::kDeny);
}

}  // namespace vigil::sentry
