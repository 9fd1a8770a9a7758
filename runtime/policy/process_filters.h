// What a container process loads before its exec, compiled once for it
// (the init at create, each process `exec` adds): the OCI profile
// (linux.seccomp), the sentry's filter for what the compiled policy
// mediates (LaunchFilterFor, policy_compiler.h) and on the ptrace platform
// the channel guard that goes with it, and the policy's Landlock layers.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "base/result.h"
#include "config/oci/spec.h"
#include "config/policy/landlock_rules.h"
#include "runtime/process/launch.h"
#include "seccomp/profile.h"
#include "sentry/table/syscall_table.h"

namespace vigil::runtime {

// linux.seccomp compiled (nullopt without one); unknown syscall names are
// left out with a warning, as runc does.
Result<std::optional<seccomp::CompiledFilter>> CompileProfile(const config::Spec& spec);

class ProcessFilters {
 public:
  // `spec`'s profile, the sentry's filter for `sentry`, and `landlock`
  // (the compiled policy's layers). Held by pointer: Launch points into it.
  static Result<std::unique_ptr<ProcessFilters>> Compile(
      const config::Spec& spec, const sentry::FilterOptions& sentry,
      std::vector<config::LandlockRuleset> landlock);

  // The options of a launch that loads these (which must outlive them);
  // its channel is the caller's to set.
  LaunchOptions Launch(int preserve_fds) const;

 private:
  std::optional<seccomp::CompiledFilter> profile_;
  seccomp::CompiledFilter sentry_;
  std::optional<seccomp::CompiledFilter> channel_guard_;
  PtracePlatform ptrace_;
  std::vector<config::LandlockRuleset> landlock_;
};

}  // namespace vigil::runtime
