// Facts about processes read from /proc.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "base/result.h"

namespace vigil {

// The process's start time in clock ticks since boot (/proc/PID/stat field
// 22). Together with the pid it names a process uniquely, even after the
// pid is reused.
Result<std::uint64_t> ProcessStartTime(pid_t pid);

// Whether `pid` still names the process that started at `start_time` and
// has not exited (a zombie counts as exited).
bool ProcessAlive(pid_t pid, std::uint64_t start_time);

}  // namespace vigil
