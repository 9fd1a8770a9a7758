// The last steps of every container process, the init's and each exec's:
// become the configured user with the configured capabilities, close what
// the runtime holds, and exec the program.
#pragma once

#include <string>

#include "base/result.h"
#include "config/policy/landlock_rules.h"
#include "config/oci/process.h"
#include "runtime/linux/seccomp_filter.h"
#include "runtime/process/channel.h"

namespace vigil::runtime {

struct LaunchOptions {
  int preserve_fds = 0;
  // linux.seccomp, compiled by the runtime before the clone; null for none.
  const CompiledFilter* seccomp = nullptr;
  // The sentry's filter (sentry/table/sentry_filter.h); null: no sentry.
  const CompiledFilter* sentry = nullptr;
  // The ptrace platform: the filter trace-stops instead of notifying, and
  // the process waits to be traced before it loads it.
  bool sentry_traced = false;
  // The policy's Landlock ruleset (runtime/linux/landlock.h), resolved in
  // the container's root; null: none.
  const config::LandlockRuleset* landlock = nullptr;
  // Where the sentry's listener is announced (kSentryListener), or the
  // process asks to be traced (kSentryTracee); kProceed answers either.
  const Channel* channel = nullptr;
};

// Applies the Landlock ruleset, drops the bounding set, switches user
// keeping the configured capabilities, sets no_new_privs and the umask,
// loads the seccomp filters, marks every fd >= 3 + preserve_fds
// close-on-exec and execs `executable`. Returns only on failure.
Result<void> BecomeAndExec(const config::Process& process, const std::string& executable,
                           const LaunchOptions& options);

}  // namespace vigil::runtime
