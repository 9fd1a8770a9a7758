// Reading a container's usage for `events --stats`: memory, pids and CPU,
// from whichever hierarchy holds each (v1 memory/pids/cpuacct/cpu files, or
// cgroup2's memory.*, pids.* and cpu.stat).
#include <unistd.h>

#include <sstream>

#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {
namespace {

std::uint64_t Get(const std::map<std::string, std::uint64_t>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

Result<MemoryStats> MemoryV1(const Knobs& knobs, const Placement& p) {
  MemoryStats s;
  ASSIGN_OR_RETURN(s.usage, knobs.ReadNumber(p, "memory.usage_in_bytes"));
  ASSIGN_OR_RETURN(s.max_usage, knobs.ReadNumber(p, "memory.max_usage_in_bytes"));
  ASSIGN_OR_RETURN(s.limit, knobs.ReadNumber(p, "memory.limit_in_bytes"));
  ASSIGN_OR_RETURN(s.failcnt, knobs.ReadNumber(p, "memory.failcnt"));
  if (knobs.Exists(p, "memory.memsw.usage_in_bytes")) {
    ASSIGN_OR_RETURN(s.swap_usage, knobs.ReadNumber(p, "memory.memsw.usage_in_bytes"));
    ASSIGN_OR_RETURN(s.swap_limit, knobs.ReadNumber(p, "memory.memsw.limit_in_bytes"));
  }
  ASSIGN_OR_RETURN(s.raw, knobs.ReadKeyed(p, "memory.stat"));
  s.cache = Get(s.raw, "cache");
  return s;
}

std::uint64_t AddLimits(std::uint64_t a, std::uint64_t b) {
  return a == kUnlimited || b == kUnlimited ? kUnlimited : a + b;
}

Result<MemoryStats> MemoryV2(const Knobs& knobs, const Placement& p) {
  MemoryStats s;
  ASSIGN_OR_RETURN(s.usage, knobs.ReadNumber(p, "memory.current"));
  if (knobs.Exists(p, "memory.peak")) {
    ASSIGN_OR_RETURN(s.max_usage, knobs.ReadNumber(p, "memory.peak"));
  }
  ASSIGN_OR_RETURN(s.limit, knobs.ReadNumber(p, "memory.max"));
  if (knobs.Exists(p, "memory.events")) {
    ASSIGN_OR_RETURN(auto events, knobs.ReadKeyed(p, "memory.events"));
    s.failcnt = Get(events, "max");
  }
  if (knobs.Exists(p, "memory.swap.current")) {
    ASSIGN_OR_RETURN(std::uint64_t swap, knobs.ReadNumber(p, "memory.swap.current"));
    ASSIGN_OR_RETURN(std::uint64_t swap_max, knobs.ReadNumber(p, "memory.swap.max"));
    s.swap_usage = s.usage + swap;
    s.swap_limit = AddLimits(s.limit, swap_max);
  }
  ASSIGN_OR_RETURN(s.raw, knobs.ReadKeyed(p, "memory.stat"));
  s.cache = Get(s.raw, "file");
  return s;
}

Result<PidsStats> Pids(const Knobs& knobs, const Placement& p) {
  PidsStats s;
  ASSIGN_OR_RETURN(s.current, knobs.ReadNumber(p, "pids.current"));
  ASSIGN_OR_RETURN(std::uint64_t limit, knobs.ReadNumber(p, "pids.max"));
  s.limit = limit == kUnlimited ? 0 : limit;
  return s;
}

// cpuacct.usage_user/_sys (ns) are Linux 4.x+; before that only
// cpuacct.stat, in clock ticks.
Result<void> CpuacctV1(const Knobs& knobs, const Placement& p, CpuStats& s) {
  ASSIGN_OR_RETURN(s.usage_total, knobs.ReadNumber(p, "cpuacct.usage"));
  if (knobs.Exists(p, "cpuacct.usage_user") && knobs.Exists(p, "cpuacct.usage_sys")) {
    ASSIGN_OR_RETURN(s.usage_user, knobs.ReadNumber(p, "cpuacct.usage_user"));
    ASSIGN_OR_RETURN(s.usage_kernel, knobs.ReadNumber(p, "cpuacct.usage_sys"));
  } else if (knobs.Exists(p, "cpuacct.stat")) {
    ASSIGN_OR_RETURN(auto ticks, knobs.ReadKeyed(p, "cpuacct.stat"));
    std::uint64_t hz = static_cast<std::uint64_t>(::sysconf(_SC_CLK_TCK));
    if (hz == 0) hz = 100;
    s.usage_user = Get(ticks, "user") * (1000000000 / hz);
    s.usage_kernel = Get(ticks, "system") * (1000000000 / hz);
  }
  if (knobs.Exists(p, "cpuacct.usage_percpu")) {
    ASSIGN_OR_RETURN(std::string percpu, knobs.Read(p, "cpuacct.usage_percpu"));
    std::istringstream in(percpu);
    for (std::uint64_t n; in >> n;) s.usage_percpu.push_back(n);
  }
  return {};
}

Result<std::optional<CpuStats>> Cpu(const Knobs& knobs) {
  CpuStats s;
  bool any = false;
  const Placement* cpuacct = knobs.Find("cpuacct");
  if (cpuacct != nullptr && !cpuacct->hierarchy.v2) {
    RETURN_IF_ERROR(CpuacctV1(knobs, *cpuacct, s));
    any = true;
  }
  const Placement* v2 = knobs.Unified();
  // Every cgroup2 directory has cpu.stat's usage lines, even without the cpu
  // controller; use them when v1 cpuacct is absent.
  if (!any && v2 != nullptr && knobs.Exists(*v2, "cpu.stat")) {
    ASSIGN_OR_RETURN(auto stat, knobs.ReadKeyed(*v2, "cpu.stat"));
    s.usage_total = Get(stat, "usage_usec") * 1000;
    s.usage_user = Get(stat, "user_usec") * 1000;
    s.usage_kernel = Get(stat, "system_usec") * 1000;
    any = true;
  }
  // Throttling: v1 cpu.stat (throttled_time in ns), v2 cpu.stat
  // (throttled_usec) when the cpu controller is enabled.
  if (const Placement* cpu = knobs.Find("cpu"); cpu != nullptr && knobs.Exists(*cpu, "cpu.stat")) {
    ASSIGN_OR_RETURN(auto stat, knobs.ReadKeyed(*cpu, "cpu.stat"));
    s.periods = Get(stat, "nr_periods");
    s.throttled_periods = Get(stat, "nr_throttled");
    s.throttled_time =
        cpu->hierarchy.v2 ? Get(stat, "throttled_usec") * 1000 : Get(stat, "throttled_time");
    any = true;
  }
  if (!any) return std::optional<CpuStats>();
  return std::optional<CpuStats>(std::move(s));
}

}  // namespace

Result<Stats> ReadCgroupStats(const Knobs& knobs) {
  Stats stats;
  if (const Placement* p = knobs.Find("memory")) {
    Result<MemoryStats> memory = p->hierarchy.v2 ? MemoryV2(knobs, *p) : MemoryV1(knobs, *p);
    if (!memory) return tl::unexpected(std::move(memory).error().Wrap("memory stats"));
    stats.memory = std::move(*memory);
  }
  if (const Placement* p = knobs.Find("pids")) {
    Result<PidsStats> pids = Pids(knobs, *p);
    if (!pids) return tl::unexpected(std::move(pids).error().Wrap("pids stats"));
    stats.pids = *pids;
  }
  Result<std::optional<CpuStats>> cpu = Cpu(knobs);
  if (!cpu) return tl::unexpected(std::move(cpu).error().Wrap("cpu stats"));
  stats.cpu = std::move(*cpu);
  return stats;
}

}  // namespace vigil::runtime::cgroup
