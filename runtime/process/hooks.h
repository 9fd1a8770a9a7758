// OCI hooks: programs run at fixed points of the lifecycle with the
// container's state JSON on their standard input.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/oci/spec.h"
#include "config/oci/state.h"

namespace vigil::runtime {

// Runs `hooks` (of the kind named `kind`, e.g. "createRuntime") in order,
// each with `state` on stdin, stopping at the first that fails: exits
// non-zero, dies, or outlives its timeout (then it is killed). The error
// names the hook: "hooks.createRuntime[1] /usr/bin/x: exit status 2".
// `uts_namespace`, when not -1, is the UTS namespace the hooks run in
// instead of the caller's (the supervisor lives in the container's).
Result<void> RunHooks(std::string_view kind, const std::vector<config::Hook>& hooks,
                      const config::State& state, int uts_namespace = -1);

// The hooks of `kind` in `spec` (empty when there are none).
const std::vector<config::Hook>& HooksOf(const config::Spec& spec, std::string_view kind);

}  // namespace vigil::runtime
