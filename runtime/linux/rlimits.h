// process.rlimits applied with setrlimit(2).
#pragma once

#include <vector>

#include "base/result.h"
#include "config/oci/process.h"

namespace vigil::runtime {

// Sets each limit. Raising a hard limit needs CAP_SYS_RESOURCE; without it
// the error names the limit and both values, e.g.
// "rlimit RLIMIT_NOFILE: cannot raise hard limit 20000 to 1048576".
Result<void> ApplyRlimits(const std::vector<config::Rlimit>& rlimits);

}  // namespace vigil::runtime
