// How long a container may run: a per-sandbox timeout from `vigil run
// --timeout` (the operator's) and the annotation dev.vigil.timeout (the
// container's, which may only shorten it), and the grace period between
// the TERM and the KILL that end a container whose time is up.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/oci/spec.h"

namespace vigil::lifecycle {

// As `docker stop`'s default.
inline constexpr std::chrono::milliseconds kDefaultTimeoutGrace{10'000};

struct Lifetime {
  std::chrono::milliseconds timeout{0};  // 0: none
  std::chrono::milliseconds grace = kDefaultTimeoutGrace;
};

// From the operator's timeouts, `run`/`create --timeout` (`flag_timeout`)
// and the global --timeout (`global_timeout`, set once for every container,
// e.g. in Docker's runtimeArgs) — Go durations, empty for none; the shorter
// holds — and the annotations. A timeout must be above 0, and the
// annotation's may not be longer than the operator's; errors name the flag
// or annotation.
Result<Lifetime> ResolveLifetime(const config::Spec& spec, const std::string& flag_timeout,
                                 const std::string& global_timeout = "");

}  // namespace vigil::lifecycle
