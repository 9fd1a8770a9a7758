// Facts about processes read from /proc.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string_view>

#include "base/result.h"

namespace vigil {

// The process's start time in clock ticks since boot (/proc/PID/stat field
// 22). Together with the pid it names a process uniquely, even after the
// pid is reused.
Result<std::uint64_t> ProcessStartTime(pid_t pid);

// Whether `pid` still names the process that started at `start_time` and
// has not exited (a zombie counts as exited).
bool ProcessAlive(pid_t pid, std::uint64_t start_time);

// In a /proc file of "Key:   N kB" lines (/proc/meminfo, /proc/PID/status),
// the value of the line that starts with `key` ("MemTotal:", "VmSwap:"), in
// bytes; 0 when there is no such line.
std::uint64_t KibFieldBytes(std::string_view text, std::string_view key);

}  // namespace vigil
