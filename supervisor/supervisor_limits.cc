// The container's cgroup limits at work, as audit events: each time the OOM
// killer kills in its cgroup or its pids limit refuses a fork, an event
// record says how many times since the last one. Counted from the kernel's
// own counters (memory.oom_control's or memory.events' oom_kill, pids.events'
// max) at each audit sweep, once a second, and when the container ends.
#include "base/strings.h"
#include "supervisor/supervisor_process.h"

namespace vigil::supervisor {
namespace {

// The increase of `counter` since `seen` (which it updates); 0 when the
// counter cannot be read (no such controller).
std::uint64_t Increase(const Result<std::uint64_t>& counter, std::uint64_t& seen) {
  if (!counter || *counter <= seen) return 0;
  const std::uint64_t by = *counter - seen;
  seen = *counter;
  return by;
}

}  // namespace

void Supervisor::StartCountingLimits() {
  if (!cgroup_) return;
  seen_oom_kills_ = cgroup_->OomKills().value_or(0);
  seen_pids_refusals_ = cgroup_->PidsLimitHits().value_or(0);
}

void Supervisor::RecordLimitEvents() {
  if (!cgroup_ || !audit_) return;
  if (const std::uint64_t kills = Increase(cgroup_->OomKills(), seen_oom_kills_)) {
    audit_->RecordEvent("oom-kill", init_pid_, sentry::audit::Decision::kKill,
                        {{"processes", StrCat(kills), true}});
  }
  if (const std::uint64_t refused = Increase(cgroup_->PidsLimitHits(), seen_pids_refusals_)) {
    audit_->RecordEvent("pids-limit", init_pid_, sentry::audit::Decision::kDeny,
                        {{"forks", StrCat(refused), true}});
  }
}

}  // namespace vigil::supervisor
