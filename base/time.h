// Wall-clock timestamps in the format Go's time.RFC3339Nano prints, which
// runc's callers parse.
#pragma once

#include <string>

namespace vigil {

// Now, in UTC: "2026-11-29T09:20:00.123456789Z".
std::string Rfc3339NanoNow();

}  // namespace vigil
