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
