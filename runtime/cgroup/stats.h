// Usage figures of a container's cgroup, what `events --stats` reports.
// Numbers are as runc reports them: bytes, nanoseconds; an unlimited v2 limit
// ("max") is UINT64_MAX, an unlimited v1 limit the kernel's own large number.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vigil::runtime::cgroup {

struct CpuStats {
  std::uint64_t usage_total = 0;            // ns
  std::uint64_t usage_user = 0;             // ns
  std::uint64_t usage_kernel = 0;           // ns
  std::vector<std::uint64_t> usage_percpu;  // ns per CPU; v1 only
  std::uint64_t periods = 0;                // CFS bandwidth periods elapsed
  std::uint64_t throttled_periods = 0;      // ... in which the quota ran out
  std::uint64_t throttled_time = 0;         // ns spent throttled
};

struct MemoryStats {
  std::uint64_t usage = 0;      // v1 memory.usage_in_bytes, v2 memory.current
  std::uint64_t max_usage = 0;  // peak (v2: memory.peak, Linux 5.19+; else 0)
  std::uint64_t limit = 0;
  std::uint64_t failcnt = 0;  // v1 memory.failcnt, v2 memory.events "max"
  // Memory+swap, as runc's "swap" entry: v1 memsw.*, v2 the sums of
  // memory.* and memory.swap.*; 0 when swap accounting is off.
  std::uint64_t swap_usage = 0;
  std::uint64_t swap_limit = 0;
  std::uint64_t cache = 0;                   // page cache (v1 "cache", v2 "file")
  std::map<std::string, std::uint64_t> raw;  // memory.stat
};

struct PidsStats {
  std::uint64_t current = 0;
  std::uint64_t limit = 0;  // 0: unlimited ("max")
};

// What Cgroup::ReleaseMemory freed: the memory charged to the cgroup
// before and after, in bytes (v1 memory.usage_in_bytes, v2 memory.current).
struct MemoryRelease {
  std::uint64_t before = 0;
  std::uint64_t after = 0;
};

// A section is empty when the host lacks the controller.
struct Stats {
  std::optional<CpuStats> cpu;
  std::optional<MemoryStats> memory;
  std::optional<PidsStats> pids;
};

}  // namespace vigil::runtime::cgroup
