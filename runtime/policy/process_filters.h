// The sentry's part of launching a container process (the init at create,
// each one `exec` adds): the compiled filters LaunchOptions points to, for
// what the compiled policy mediates (LaunchFilterFor, policy_compiler.h).
#pragma once

#include <memory>
#include <optional>

#include "base/result.h"
#include "runtime/process/launch.h"
#include "seccomp/profile.h"
#include "sentry/table/syscall_table.h"

namespace vigil::runtime {

class SentryFilters {
 public:
  // The sentry's filter, and on the ptrace platform the channel guard that
  // goes with it. Held by pointer: ptrace() points into it.
  static Result<std::unique_ptr<SentryFilters>> Compile(const sentry::FilterOptions& options);

  const seccomp::CompiledFilter& sentry() const { return sentry_; }
  // Null on the user-notification platform.
  const PtracePlatform* ptrace() const { return channel_guard_ ? &ptrace_ : nullptr; }

 private:
  seccomp::CompiledFilter sentry_;
  std::optional<seccomp::CompiledFilter> channel_guard_;
  PtracePlatform ptrace_;
};

}  // namespace vigil::runtime
