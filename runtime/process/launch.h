// The last steps of every container process, the init's and each exec's:
// become the configured user with the configured capabilities, close what
// the runtime holds, and exec the program.
#pragma once

#include <functional>
#include <string>

#include "base/result.h"
#include "config/oci/process.h"
#include "config/policy/landlock_rules.h"
#include "runtime/process/channel.h"
#include "seccomp/profile.h"

namespace vigil::runtime {

// How a process serves the sentry on the ptrace platform.
struct PtracePlatform {
  // Where it keeps its end of the channel the sentry hands it descriptors
  // by (sentry/ptrace/descriptor_channel.h).
  int channel_fd = -1;
  // The filter loaded after the sentry's that keeps the channel open
  // (BuildChannelGuardFilter in sentry/table/sentry_filter.h).
  const seccomp::CompiledFilter* channel_guard = nullptr;
};

struct LaunchOptions {
  int preserve_fds = 0;
  // linux.seccomp, compiled by the runtime before the clone; null for none.
  const seccomp::CompiledFilter* seccomp = nullptr;
  // The sentry's filter (sentry/table/sentry_filter.h); null: no sentry.
  const seccomp::CompiledFilter* sentry = nullptr;
  // The ptrace platform (null: user notification): the filter trace-stops
  // instead of notifying, and the process waits to be traced before it
  // loads it.
  const PtracePlatform* ptrace = nullptr;
  // The policy's Landlock rulesets, applied in order (the compiled
  // policy's, runtime/policy/compiled_policy.h), resolved in the
  // container's root; null or empty: none.
  const std::vector<config::LandlockRuleset>* landlock = nullptr;
  // Where the sentry's listener is announced (kSentryListener), or the
  // process asks to be traced and announces the sentry's end of its
  // descriptor channel (kSentryTracee); kProceed answers either.
  const Channel* channel = nullptr;
  // Called once only the exec is left (every filter loaded, the user
  // switched): the container's init waits there for `start` when it could
  // prepare everything at create. Null: exec at once.
  std::function<Result<void>()> before_exec;
};

// What the init and every exec'd process do in the container before
// BecomeAndExec, in this order: process.rlimits, scheduler and ioPriority,
// then the cwd. Returns the program, args[0] looked up on the process's
// PATH from there.
Result<std::string> PrepareProcess(const config::Process& process);

// Applies the Landlock ruleset, drops the bounding set, switches user
// keeping the configured capabilities, sets no_new_privs and the umask,
// loads the seccomp filters, marks every fd >= 3 + preserve_fds
// close-on-exec, calls `before_exec` and execs `executable`. Returns only
// on failure.
Result<void> BecomeAndExec(const config::Process& process, const std::string& executable,
                           const LaunchOptions& options);

}  // namespace vigil::runtime
