#include <cerrno>

#include "sentry/handlers/handler.h"

namespace vigil::sentry {

Verdict Handle(Handler handler, HandlerContext& context) {
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

// Forms whose arguments the sentry would have to decode on top (the
// *xattrat and file_*attr structs, file handles): ENOSYS, on which callers
// fall back to an older syscall the sentry serves, or to paths.
Verdict HandleFallBack(HandlerContext& /*context*/) {
  return Verdict::Fail(ENOSYS, Decision::kDeny);
}

}  // namespace vigil::sentry
