// Quantities on the command line in the notations runc's Go flags accept:
// sizes as go-units reads them, durations as time.ParseDuration does.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "base/result.h"

namespace vigil::cli {

// A byte count: "1048576", "512k", "1.5g", "64MiB", "2 GB" (multiples of
// 1024), or -1 for unlimited. Errors name --`flag`.
Result<std::int64_t> ParseBytes(std::string_view flag, std::string_view text);

// "5s", "500ms", "1m30s", "1.5h", "250us"; "0" alone needs no unit. Errors
// name --`flag`.
Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view flag, std::string_view text);

}  // namespace vigil::cli
