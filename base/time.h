// Wall-clock timestamps in the format Go's time.RFC3339Nano prints, which
// runc's callers parse.
#pragma once

#include <ctime>
#include <string>

namespace vigil {

// Now, in UTC: "2026-11-29T09:20:00.123456789Z".
std::string Rfc3339NanoNow();

// `ts` (CLOCK_REALTIME) in the same format, replacing `out`'s contents. For
// hot paths: no allocation once `out` has room for the 30 characters, and
// the calendar part is computed once per second and thread.
void FormatRfc3339Nano(const timespec& ts, std::string& out);

}  // namespace vigil
