// linux.resources.cpu (all but cpus/mems, which are cpuset.cc's), as runc
// applies it.
//   v1: cpu.shares, cpu.cfs_period_us, cpu.cfs_quota_us, cpu.cfs_burst_us,
//       cpu.idle, cpu.rt_period_us, cpu.rt_runtime_us.
//   v2: cpu.weight (converted from shares), cpu.max "quota period",
//       cpu.max.burst, cpu.idle; no real-time knobs exist.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <optional>

#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {
namespace {

constexpr std::string_view kShares = "linux.resources.cpu.shares";
constexpr std::string_view kQuota = "linux.resources.cpu.quota";
constexpr std::string_view kPeriod = "linux.resources.cpu.period";
constexpr std::string_view kBurst = "linux.resources.cpu.burst";
constexpr std::string_view kIdle = "linux.resources.cpu.idle";
constexpr std::string_view kRtRuntime = "linux.resources.cpu.realtimeRuntime";
constexpr std::string_view kRtPeriod = "linux.resources.cpu.realtimePeriod";

// The config's cpu knobs with runc's "0 means unset".
struct Request {
  std::uint64_t shares = 0;
  std::int64_t quota = 0;
  std::uint64_t period = 0;
  std::optional<std::uint64_t> burst;
  std::optional<std::int64_t> idle;
  std::int64_t rt_runtime = 0;
  std::uint64_t rt_period = 0;

  [[nodiscard]] std::string_view FirstSet() const {
    if (shares != 0) return kShares;
    if (quota != 0) return kQuota;
    if (period != 0) return kPeriod;
    if (burst) return kBurst;
    if (idle) return kIdle;
    if (rt_runtime != 0) return kRtRuntime;
    if (rt_period != 0) return kRtPeriod;
    return {};
  }
};

Result<void> ApplyV1(const Knobs& knobs, const Placement& p, const Request& r) {
  if (r.shares != 0) {
    RETURN_IF_ERROR(knobs.Write(p, "cpu.shares", StrCat(r.shares), kShares));
    // The kernel clamps shares to [2, 262144] without an error.
    ASSIGN_OR_RETURN(std::uint64_t got, knobs.ReadNumber(p, "cpu.shares"));
    if (got != r.shares) {
      return Fail(StrCat(kShares, ": the kernel took ", r.shares, " as ", got,
                         " (the allowed range is 2-262144)"));
    }
  }
  bool period_pending = false;
  if (r.period != 0) {
    Result<void> written = knobs.Write(p, "cpu.cfs_period_us", StrCat(r.period), kPeriod);
    // A shorter period can be refused (EINVAL) because the old quota over
    // the new period exceeds the parent's bandwidth; retry after the quota.
    if (!written && !(written.error().code == EINVAL && r.quota != 0)) return written;
    period_pending = !written;
  }
  if (r.quota != 0) {
    RETURN_IF_ERROR(knobs.Write(p, "cpu.cfs_quota_us", StrCat(r.quota), kQuota));
    if (period_pending) {
      RETURN_IF_ERROR(knobs.Write(p, "cpu.cfs_period_us", StrCat(r.period), kPeriod));
    }
  }
  if (r.burst) RETURN_IF_ERROR(knobs.Write(p, "cpu.cfs_burst_us", StrCat(*r.burst), kBurst));
  if (r.idle) RETURN_IF_ERROR(knobs.Write(p, "cpu.idle", StrCat(*r.idle), kIdle));
  // The runtime before the period could be refused against the old period.
  if (r.rt_period != 0) {
    RETURN_IF_ERROR(knobs.Write(p, "cpu.rt_period_us", StrCat(r.rt_period), kRtPeriod));
  }
  if (r.rt_runtime != 0) {
    RETURN_IF_ERROR(knobs.Write(p, "cpu.rt_runtime_us", StrCat(r.rt_runtime), kRtRuntime));
  }
  return {};
}

Result<void> ApplyV2(const Knobs& knobs, const Placement& p, const Request& r) {
  if (r.rt_runtime != 0 || r.rt_period != 0) {
    return Fail(StrCat(r.rt_runtime != 0 ? kRtRuntime : kRtPeriod,
                       ": cgroup v2 has no real-time CPU bandwidth control"));
  }
  if (r.shares != 0) {
    RETURN_IF_ERROR(knobs.Write(p, "cpu.weight", StrCat(CpuSharesToWeight(r.shares)), kShares));
  }
  if (r.idle) RETURN_IF_ERROR(knobs.Write(p, "cpu.idle", StrCat(*r.idle), kIdle));
  if (r.quota != 0 || r.period != 0) {
    // As runc: a period alone writes "max PERIOD" (no quota).
    std::string value = r.quota > 0 ? StrCat(r.quota) : "max";
    if (r.period != 0) value += StrCat(" ", r.period);
    RETURN_IF_ERROR(knobs.Write(p, "cpu.max", value, r.quota != 0 ? kQuota : kPeriod));
  }
  // After cpu.max: the kernel refuses a burst larger than the quota.
  if (r.burst) RETURN_IF_ERROR(knobs.Write(p, "cpu.max.burst", StrCat(*r.burst), kBurst));
  return {};
}

}  // namespace

std::uint64_t CpuSharesToWeight(std::uint64_t shares) {
  if (shares == 0) return 0;
  shares = std::clamp<std::uint64_t>(shares, 2, 262144);
  return 1 + ((shares - 2) * 9999) / 262142;
}

Result<void> ApplyCpu(const Knobs& knobs, const config::Resources& resources) {
  if (!resources.cpu) return {};
  const config::Cpu& c = *resources.cpu;
  Request r{.shares = c.shares.value_or(0),
            .quota = c.quota.value_or(0),
            .period = c.period.value_or(0),
            .burst = c.burst,
            .idle = c.idle,
            .rt_runtime = c.realtime_runtime.value_or(0),
            .rt_period = c.realtime_period.value_or(0)};
  std::string_view first = r.FirstSet();
  if (first.empty()) return {};
  ASSIGN_OR_RETURN(const Placement* p, knobs.Require("cpu", first));
  return p->hierarchy.v2 ? ApplyV2(knobs, *p, r) : ApplyV1(knobs, *p, r);
}

}  // namespace vigil::runtime::cgroup
