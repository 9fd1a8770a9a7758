// Mediated syscall handlers, each a function of one syscall's context. They
// run in a fiber of the sentry's event loop and know nothing of the backend
// that intercepted the call.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "sentry/core/sandbox.h"
#include "sentry/core/tracee.h"
#include "sentry/core/verdict.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

struct HandlerContext {
  const SyscallEvent& event;
  Tracee& tracee;
  const Sandbox& sandbox;
  // Suspends the handler until `fd` has one of `events` (EPOLLIN,
  // EPOLLOUT): the event loop serves others meanwhile.
  std::function<Result<void>(int fd, std::uint32_t events)> wait;
  // Decoded arguments for the audit record, paths as resolved.
  AuditArgs audit_args;

  void AuditArg(std::string_view name, std::string value) {
    audit_args.push_back({std::string(name), std::move(value)});
  }
  // An integer, written to the audit record as a JSON number.
  void AuditNumber(std::string_view name, std::int64_t value) {
    audit_args.push_back({std::string(name), std::to_string(value), /*is_number=*/true});
  }
};

// Runs the handler the table names for the event's syscall, and answers
// an error it returns with the error's errno (EIO if none). A syscall
// without a handler fails with ENOSYS (it should never have been mediated).
Verdict Handle(Handler handler, HandlerContext& context);

// One function per row of handlers.def: the verdict, or the error of a step
// that failed, which Handle answers with its errno.
#define VIGIL_HANDLER(id, ...) Result<Verdict> Handle##id(HandlerContext& context);
#include "sentry/table/handlers.def"

}  // namespace vigil::sentry
