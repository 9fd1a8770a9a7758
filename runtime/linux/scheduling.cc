#include "runtime/linux/scheduling.h"

#include <linux/ioprio.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>

#include "base/strings.h"
#include "config/oci/names.h"

namespace vigil::runtime {
namespace {

// sched_setattr(2)'s argument, as the kernel lays it out (SCHED_ATTR_SIZE_VER0:
// 48 bytes). <linux/sched/types.h> has it, but clashes with glibc's <sched.h>.
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime;
  std::uint64_t sched_deadline;
  std::uint64_t sched_period;
};
static_assert(sizeof(SchedAttr) == 48);

}  // namespace

Result<void> ApplyScheduler(const config::Scheduler& s) {
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy =
      static_cast<std::uint32_t>(config::FindName(config::kSchedulerPolicyNames, s.policy)->value);
  for (const std::string& flag : s.flags) {
    attr.sched_flags |= config::FindName(config::kSchedulerFlagNames, flag)->value;
  }
  attr.sched_nice = s.nice;
  attr.sched_priority = static_cast<std::uint32_t>(s.priority);
  attr.sched_runtime = s.runtime;
  attr.sched_deadline = s.deadline;
  attr.sched_period = s.period;
  if (::syscall(SYS_sched_setattr, 0, &attr, 0) != 0) {
    return FailErrno(StrCat("process.scheduler: set policy ", s.policy));
  }
  return {};
}

Result<void> ApplyIoPriority(const config::IoPriority& priority) {
  auto io_class =
      static_cast<int>(config::FindName(config::kIoPriorityClassNames, priority.io_class)->value);
  if (::syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
                IOPRIO_PRIO_VALUE(io_class, priority.priority)) != 0) {
    return FailErrno(StrCat("process.ioPriority: set ", priority.io_class, " ", priority.priority));
  }
  return {};
}

Result<void> ApplyPersonality(const config::Personality& personality) {
  if (!personality.flags.empty()) {
    return Fail(
        StrCat("linux.personality.flags: no flags are defined, got ", Quote(personality.flags[0])));
  }
  auto domain = config::FindName(config::kPersonalityDomainNames, personality.domain)->value;
  if (::personality(domain) < 0) {
    return FailErrno(StrCat("linux.personality: set ", personality.domain));
  }
  return {};
}

Result<void> ApplyCpuAffinity(std::string_view cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  // The list was checked when the config was validated (CheckCpuList).
  while (!cpus.empty()) {
    std::string_view item = cpus.substr(0, cpus.find(','));
    cpus.remove_prefix(std::min(cpus.size(), item.size() + 1));
    unsigned first = 0, last = 0;
    auto parsed = std::from_chars(item.data(), item.data() + item.size(), first);
    last = first;
    if (parsed.ptr != item.data() + item.size() && *parsed.ptr == '-') {
      std::from_chars(parsed.ptr + 1, item.data() + item.size(), last);
    }
    for (unsigned cpu = first; cpu <= last && cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &set);
  }
  if (::sched_setaffinity(0, sizeof set, &set) != 0) return FailErrno("set the CPU affinity");
  return {};
}

}  // namespace vigil::runtime
