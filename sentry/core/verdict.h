// A handler's answer to one syscall, and how the audit log names it.
#pragma once

#include <cstdint>

#include "sentry/audit/record.h"

namespace vigil::sentry {

// kAllow: performed on the workload's behalf, as asked; kDeny: refused by
// the policy; kEmulate: answered by the sentry without the host kernel
// doing it; kKill: the workload was killed.
using Decision = audit::Decision;

struct Verdict {
  enum class Kind : std::uint8_t {
    kReturn,  // the syscall returns `value`, or fails with `error` if non-zero
    kStale,   // the syscall no longer waits (the thread died): answer nothing
  };
  Kind kind = Kind::kReturn;
  Decision decision = Decision::kEmulate;
  std::int64_t value = 0;
  int error = 0;

  static Verdict Return(std::int64_t value, Decision decision) {
    return {.decision = decision, .value = value};
  }
  static Verdict Fail(int error, Decision decision) {
    return {.decision = decision, .error = error};
  }
  static Verdict Stale() { return {.kind = Kind::kStale}; }
};

}  // namespace vigil::sentry
