// The sentry's part of launching a container process (the init at create,
// each one `exec` adds): what its filter mediates, what the platform asks
// of the process, and the compiled filters LaunchOptions points to.
#pragma once

#include <memory>
#include <optional>

#include "base/result.h"
#include "config/oci/process.h"
#include "config/policy/policy.h"
#include "runtime/process/launch.h"
#include "seccomp/profile.h"
#include "sentry/core/platform.h"
#include "sentry/table/syscall_table.h"

namespace vigil::runtime {

// What the sentry's filter for `process` mediates under `policy` on
// `platform`; sets `process`'s no_new_privileges where the platform fixes
// the credentials (CredentialsFixed in sentry/table/sentry_filter.h).
sentry::FilterOptions SentryOptionsFor(const config::Policy& policy, sentry::Platform platform,
                                       config::Process& process);

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
