// sysinfo(2) as the container should see it (what LXCFS does for
// /proc/meminfo): memory from its cgroup's limit and usage, uptime from its
// start, the number of its processes. Load averages stay the host's.
#include <sys/sysinfo.h>

#include <algorithm>

#include "base/strings.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/answer.h"

namespace vigil::sentry {

Result<Verdict> HandleSysinfo(HandlerContext& context) {
  // The container's cgroup, read as the sentry.
  if (Result<void> own = ActingAs::AsSentry(); !own)
    return Verdict::Fail(EPERM, Decision::kEmulate);
  struct sysinfo info {};
  if (::sysinfo(&info) != 0) return Verdict::Fail(errno, Decision::kEmulate);
  const Sandbox& sandbox = context.sandbox;
  const auto uptime = static_cast<std::uint64_t>(info.uptime);
  info.uptime = static_cast<long>(uptime - std::min(uptime, sandbox.started_after_boot));
  if (Result<ContainerMemory> memory = sandbox.memory(); memory && memory->limit) {
    const std::uint64_t unit = info.mem_unit == 0 ? 1 : info.mem_unit;
    const std::uint64_t host_total = info.totalram * unit;
    const std::uint64_t total = std::min(*memory->limit, host_total);
    const std::uint64_t used = std::min(memory->usage, total);
    info.totalram = total / unit;
    info.freeram = (total - used) / unit;
    info.sharedram = 0;
    info.bufferram = 0;
    // The limit bounds memory and swap together as far as the workload can
    // tell; report no swap rather than the host's.
    info.totalswap = 0;
    info.freeswap = 0;
  }
  if (Result<std::uint32_t> count = sandbox.process_count(); count) {
    info.procs = static_cast<unsigned short>(std::min<std::uint32_t>(*count, 0xffff));
  }
  context.AuditNumber("totalram", static_cast<std::int64_t>(
                                      info.totalram * (info.mem_unit == 0 ? 1 : info.mem_unit)));
  return AnswerWithObject(context, context.event.args[0], info, Decision::kEmulate);
}

}  // namespace vigil::sentry
