// Landlock for container processes: each applies to itself the ruleset
// config/policy/landlock_rules.h derives from the vigil policy, after the
// container's root is entered and before its seccomp filters are loaded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/oci/spec.h"
#include "config/policy/landlock_rules.h"

namespace vigil::runtime {

// The running kernel's Landlock ABI version; 0 when it has none (not built
// in, or not enabled at boot), which is logged as a warning once per process.
int LandlockAbi();

// The ruleset every process of a container under `policy` applies to
// itself: config::LandlockRulesFor at the kernel's ABI. Empty (handled 0)
// without Landlock: the sentry still enforces the policy on its own.
config::LandlockRuleset LandlockRulesForContainer(const config::Policy& policy);

// The rulesets every process of a container under `policy` (its config
// `spec`, as the policy shaped it) applies, in order: the policy's bounds
// (LandlockRulesForContainer) and the layer that holds writes to
// KernelWriteTrees exactly; each only when it handles something.
std::vector<config::LandlockRuleset> LandlockLayersForContainer(const config::Policy& policy,
                                                                const config::Spec& spec);

// The directories beneath which that second layer holds every write
// (config::ExactWriteTrees, when this kernel's Landlock can): the sentry
// may leave a write there it decided to the kernel.
std::vector<std::string> KernelWriteTrees(const config::Policy& policy, const config::Spec& spec);

// The directory a grant for `path` is anchored on, opened O_PATH beneath the
// directory `root` (RESOLVE_IN_ROOT): `path` itself when it is a directory
// reached without symlinks, else its nearest ancestor that is. Never a
// symlink's target: a workload that planted one where a granted directory
// was cannot move the grant elsewhere (its ancestor is granted instead,
// which only widens the ruleset).
Result<UniqueFd> OpenGrantDirectory(int root, std::string_view path);

// Restricts the calling process, and everything it runs from now on, to
// `ruleset` (nothing to do when it handles nothing), with its paths
// resolved beneath `root`. Needs CAP_SYS_ADMIN in the process's user
// namespace or no_new_privs (landlock_restrict_self(2)), and applies to the
// calling thread only: call it single-threaded.
Result<void> ApplyLandlock(const config::LandlockRuleset& ruleset, std::string_view root = "/");

}  // namespace vigil::runtime
