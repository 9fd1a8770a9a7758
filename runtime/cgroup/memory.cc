// linux.resources.memory, as runc applies it.
//   v1: memory.limit_in_bytes, memory.memsw.limit_in_bytes (memory+swap),
//       memory.soft_limit_in_bytes, memory.swappiness, memory.oom_control,
//       memory.kmem.tcp.limit_in_bytes.
//   v2: memory.max, memory.swap.max (swap alone: spec swap - limit),
//       memory.low.
// "kernel" (kernel memory) is ignored on both: v1 kmem limits are deprecated
// and fail on current kernels, and cgroup2 counts kernel memory in
// memory.max. "useHierarchy" is ignored (always on since Linux 6.x).
#include <cerrno>
#include <cstdint>
#include <optional>

#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {
namespace {

constexpr std::string_view kLimit = "linux.resources.memory.limit";
constexpr std::string_view kSwap = "linux.resources.memory.swap";
constexpr std::string_view kReservation = "linux.resources.memory.reservation";
constexpr std::string_view kSwappiness = "linux.resources.memory.swappiness";
constexpr std::string_view kOomKiller = "linux.resources.memory.disableOOMKiller";
constexpr std::string_view kKernelTcp = "linux.resources.memory.kernelTCP";

// What the config asks for, with runc's "0 means unset".
struct Request {
  std::int64_t limit = 0;
  std::int64_t swap = 0;
  std::int64_t reservation = 0;
  std::optional<std::uint64_t> swappiness;
  bool disable_oom_killer = false;
  std::int64_t kernel_tcp = 0;
  bool check_before_update = false;

  // The field to name when the controller is missing: the first one set.
  [[nodiscard]] std::string_view FirstSet() const {
    if (limit != 0) return kLimit;
    if (swap != 0) return kSwap;
    if (reservation != 0) return kReservation;
    if (swappiness) return kSwappiness;
    if (disable_oom_killer) return kOomKiller;
    if (kernel_tcp != 0) return kKernelTcp;
    return {};
  }
};

// v2 spelling: -1 is "max"; 0 is "unset" (empty).
std::string V2Value(std::int64_t value) {
  if (value == 0) return "";
  if (value == -1) return "max";
  return StrCat(value);
}

// A limit below the current usage is EBUSY on v1; say what the usage is.
Result<void> SetLimitV1(const Knobs& knobs, const Placement& p, std::int64_t limit) {
  if (limit == 0) return {};
  Result<void> written = knobs.Write(p, "memory.limit_in_bytes", StrCat(limit), kLimit);
  if (!written && written.error().code == EBUSY) {
    Error error = std::move(written).error();
    if (Result<std::uint64_t> usage = knobs.ReadNumber(p, "memory.usage_in_bytes")) {
      error.message +=
          StrCat(" (the limit ", limit, " is below the current usage of ", *usage, " bytes)");
    }
    return tl::unexpected(std::move(error));
  }
  return written;
}

Result<void> SetSwapV1(const Knobs& knobs, const Placement& p, std::int64_t swap) {
  if (swap == 0) return {};
  return knobs.Write(p, "memory.memsw.limit_in_bytes", StrCat(swap), kSwap);
}

Result<void> ApplyV1(const Knobs& knobs, const Placement& p, Request r) {
  bool have_memsw = knobs.Exists(p, "memory.memsw.limit_in_bytes");
  // "Unlimited memory" means unlimited memory+swap too, unless swap is given.
  if (r.limit == -1 && r.swap == 0 && have_memsw) r.swap = -1;
  if (r.swap != 0 && !have_memsw) {
    if (r.swap != -1) {
      return Fail(StrCat(kSwap, ": swap accounting is off on this host (no ", p.dir,
                         "/memory.memsw.limit_in_bytes; boot with swapaccount=1)"));
    }
    r.swap = 0;  // unlimited is what there is
  }
  // The kernel keeps memsw >= memory at every step. If the new memory+swap
  // is at least the current memory limit, raise memsw first (the new limit
  // may exceed the current memsw); otherwise lower the limit first.
  bool swap_first = false;
  if (r.limit != 0 && r.swap != 0) {
    if (r.swap == -1) {
      swap_first = true;
    } else {
      ASSIGN_OR_RETURN(std::uint64_t current, knobs.ReadNumber(p, "memory.limit_in_bytes"));
      swap_first = current < static_cast<std::uint64_t>(r.swap);
    }
  }
  if (swap_first) {
    RETURN_IF_ERROR(SetSwapV1(knobs, p, r.swap));
    RETURN_IF_ERROR(SetLimitV1(knobs, p, r.limit));
  } else {
    RETURN_IF_ERROR(SetLimitV1(knobs, p, r.limit));
    RETURN_IF_ERROR(SetSwapV1(knobs, p, r.swap));
  }
  if (r.kernel_tcp != 0) {
    RETURN_IF_ERROR(
        knobs.Write(p, "memory.kmem.tcp.limit_in_bytes", StrCat(r.kernel_tcp), kKernelTcp));
  }
  if (r.reservation != 0) {
    RETURN_IF_ERROR(
        knobs.Write(p, "memory.soft_limit_in_bytes", StrCat(r.reservation), kReservation));
  }
  if (r.swappiness) {
    RETURN_IF_ERROR(knobs.Write(p, "memory.swappiness", StrCat(*r.swappiness), kSwappiness));
  }
  if (r.disable_oom_killer) {
    RETURN_IF_ERROR(knobs.Write(p, "memory.oom_control", "1", kOomKiller));
  }
  return {};
}

// runc's ConvertMemorySwapToCgroupV2Value: the spec's swap is memory+swap,
// memory.swap.max is swap alone.
Result<std::int64_t> SwapOnlyV2(std::int64_t swap, std::int64_t limit) {
  if (limit == -1 && swap == 0) return -1;
  if (swap == -1 || swap == 0) return swap;
  if (limit == 0 || limit == -1) {
    return Fail(StrCat(kSwap, ": a memory+swap limit needs a memory limit on cgroup v2"));
  }
  if (swap < limit) {
    return Fail(StrCat(kSwap, ": memory+swap limit ", swap, " is below the memory limit ", limit));
  }
  return swap - limit;
}

Result<void> ApplyV2(const Knobs& knobs, const Placement& p, const Request& r) {
  if (r.swappiness) {
    return Fail(StrCat(kSwappiness, ": cgroup v2 has no per-cgroup swappiness (", p.dir,
                       " has no memory.swappiness)"));
  }
  if (r.disable_oom_killer) {
    return Fail(StrCat(kOomKiller, ": cgroup v2 cannot disable the OOM killer for a cgroup"));
  }
  // kernelTCP: cgroup2 charges socket memory to memory.max; nothing to set.
  ASSIGN_OR_RETURN(std::int64_t swap_only, SwapOnlyV2(r.swap, r.limit));
  if (r.check_before_update && r.limit > 0) {
    ASSIGN_OR_RETURN(std::uint64_t current, knobs.ReadNumber(p, "memory.current"));
    if (current > static_cast<std::uint64_t>(r.limit)) {
      return Fail(StrCat(kLimit, ": ", r.limit, " is below the current usage of ", current,
                         " bytes (checkBeforeUpdate)"));
    }
  }
  std::string swap_value = V2Value(swap_only);
  // memory == memory+swap: no swap at all.
  if (swap_value.empty() && r.swap > 0) swap_value = "0";
  if (!swap_value.empty()) {
    Result<void> written = knobs.Write(p, "memory.swap.max", swap_value, kSwap);
    if (!written) {
      // Without swap accounting the file is missing; "no swap" and
      // "unlimited swap" then hold anyway.
      bool harmless = written.error().code == ENOENT && (swap_value == "max" || swap_value == "0");
      if (!harmless) return written;
    }
  }
  if (std::string v = V2Value(r.limit); !v.empty()) {
    RETURN_IF_ERROR(knobs.Write(p, "memory.max", v, kLimit));
  }
  if (std::string v = V2Value(r.reservation); !v.empty()) {
    RETURN_IF_ERROR(knobs.Write(p, "memory.low", v, kReservation));
  }
  return {};
}

}  // namespace

Result<void> ApplyMemory(const Knobs& knobs, const config::Resources& resources) {
  if (!resources.memory) return {};
  const config::Memory& m = *resources.memory;
  Request r{.limit = m.limit.value_or(0),
            .swap = m.swap.value_or(0),
            .reservation = m.reservation.value_or(0),
            .disable_oom_killer = m.disable_oom_killer.value_or(false),
            .kernel_tcp = m.kernel_tcp.value_or(0),
            .check_before_update = m.check_before_update.value_or(false)};
  // Older Docker clients send -1 (as an unsigned number) for "unset".
  if (m.swappiness && *m.swappiness != UINT64_MAX) r.swappiness = m.swappiness;
  if (r.swappiness && *r.swappiness > 100) {
    return Fail(StrCat(kSwappiness, ": must be in [0, 100], got ", *r.swappiness));
  }
  std::string_view first = r.FirstSet();
  if (first.empty()) return {};
  ASSIGN_OR_RETURN(const Placement* p, knobs.Require("memory", first));
  return p->hierarchy.v2 ? ApplyV2(knobs, *p, r) : ApplyV1(knobs, *p, r);
}

Result<std::uint64_t> OomKillCount(const Knobs& knobs) {
  ASSIGN_OR_RETURN(const Placement* p, knobs.Require("memory", "the OOM killer's kills"));
  // oom_kill is in v1's memory.oom_control since Linux 4.13.
  ASSIGN_OR_RETURN(const auto keyed,
                   knobs.ReadKeyed(*p, p->hierarchy.v2 ? "memory.events" : "memory.oom_control"));
  const auto kills = keyed.find("oom_kill");
  return kills == keyed.end() ? 0 : kills->second;
}

}  // namespace vigil::runtime::cgroup
