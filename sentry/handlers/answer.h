// Delivering an emulated answer: the result struct written to the
// workload's buffer, checked against a stale notification before the write
// (docs/design.md, rule 3).
#pragma once

#include <cerrno>
#include <cstdint>

#include "sentry/handlers/handler.h"

namespace vigil::sentry {

template <typename T>
Verdict AnswerWithObject(HandlerContext& context, std::uint64_t address, const T& value) {
  if (!context.tracee.Valid()) return Verdict::Stale();
  if (Result<void> written = context.tracee.WriteObject(address, value); !written) {
    return Verdict::Fail(written.error().code == 0 ? EFAULT : written.error().code,
                         Decision::kEmulate);
  }
  return Verdict::Return(0, Decision::kEmulate);
}

}  // namespace vigil::sentry
