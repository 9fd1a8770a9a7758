// Quantities in the notations runc's Go flags accept (and Docker's log
// options, and annotations that follow them): sizes as go-units reads them,
// durations as time.ParseDuration does.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "base/result.h"

namespace vigil {

// A byte count: "1048576", "512k", "1.5g", "64MiB", "2 GB" (multiples of
// 1024), or -1 for unlimited. Errors start with `what` ("--memory",
// "annotation dev.vigil.audit-max-size").
Result<std::int64_t> ParseBytes(std::string_view what, std::string_view text);

// "5s", "500ms", "1m30s", "1.5h", "250us"; "0" alone needs no unit. Errors
// start with `what`.
Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view what, std::string_view text);

}  // namespace vigil
