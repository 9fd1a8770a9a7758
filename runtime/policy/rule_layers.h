// Which layers enforce each file rule of a compiled policy, in words, for
// `vigil policy show --compiled`: the sentry (which decides and audits
// every call it sees), the Landlock layers each process applies to itself,
// and the mounts the compiler put in the config (masks, a read-only root).
#pragma once

#include <string>
#include <vector>

#include "config/oci/spec.h"
#include "config/policy/policy.h"
#include "runtime/policy/compiled_policy.h"

namespace vigil::runtime {

struct RuleLayers {
  std::string rule;  // the rule's pattern, or "files.default"
  config::FileAccess access = config::FileAccess::kRead;
  std::vector<std::string> by;  // "sentry", "landlock 1: writes beneath /tmp", ...
};

// For `compiled`, made for `spec` (the config as the compiler shaped it):
// the default first, then each file rule in order.
std::vector<RuleLayers> FileRuleLayers(const CompiledPolicy& compiled, const config::Spec& spec);

}  // namespace vigil::runtime
