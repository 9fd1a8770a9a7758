// Delivering an answer the sentry made: the result struct written to the
// workload's buffer, checked against a stale notification before the write
// (docs/design.md, rule 3), audited as `decision` (kEmulate for what the
// sentry made up, kAllow for the kernel's answer it passes on).
#pragma once

#include <cerrno>
#include <cstdint>

#include "sentry/handlers/handler.h"

namespace vigil::sentry {

template <typename T>
Verdict AnswerWithObject(HandlerContext& context, std::uint64_t address, const T& value,
                         Decision decision) {
  if (!context.tracee.Valid()) return Verdict::Stale();
  if (Result<void> written = context.tracee.WriteObject(address, value); !written) {
    return Verdict::Fail(written.error().code == 0 ? EFAULT : written.error().code, decision);
  }
  return Verdict::Return(0, decision);
}

}  // namespace vigil::sentry
