#include "lifecycle/inspect.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "base/log.h"
#include "base/proc.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/container/container_cgroup.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/status.h"

namespace vigil::lifecycle {
namespace {

using Clock = std::chrono::steady_clock;

// The cgroup of a container that has not stopped.
Result<runtime::cgroup::Cgroup> LiveCgroup(const runtime::ContainerRecord& record) {
  RETURN_IF_ERROR(
      runtime::CheckTransition(runtime::Verb::kStats, runtime::CurrentStatus(record), record.id));
  ASSIGN_OR_RETURN(std::optional<runtime::cgroup::Cgroup> cg, runtime::ContainerCgroup(record));
  if (!cg) return Fail(StrCat("container ", Quote(record.id), " has no cgroup to measure"));
  return std::move(*cg);
}

// Whether the container has stopped (by its record, corrected by /proc) or
// is gone (deleted).
bool Stopped(const std::string& root, const std::string& id) {
  Result<runtime::ContainerRecord> record = runtime::ReadRecord(root, id);
  return !record || runtime::CurrentStatus(*record) == config::ContainerStatus::kStopped;
}

// Waits until `deadline` or until `pidfd`'s process exits; true for the
// latter.
bool ExitsBefore(int pidfd, Clock::time_point deadline) {
  while (true) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{.fd = pidfd, .events = POLLIN, .revents = 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), INT_MAX)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return true;  // cannot watch it: stop rather than spin
  }
}

}  // namespace

Result<std::vector<pid_t>> ContainerProcesses(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, runtime::ReadRecord(root, id));
  bool stopped = runtime::CurrentStatus(record) == config::ContainerStatus::kStopped;
  ASSIGN_OR_RETURN(std::optional<runtime::cgroup::Cgroup> cg, runtime::ContainerCgroup(record));
  if (!cg) {
    if (stopped || !ProcessAlive(record.init_pid, record.init_start)) return std::vector<pid_t>{};
    return std::vector<pid_t>{record.init_pid};
  }
  // Like runc, read the cgroup even when stopped: without a pid namespace
  // processes can outlive the init. Once `delete` removed it there are none.
  Result<std::vector<pid_t>> pids = cg->Processes();
  if (!pids && stopped) return std::vector<pid_t>{};
  return pids;
}

Result<runtime::cgroup::Stats> ContainerStats(const std::string& root, const std::string& id) {
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, runtime::ReadRecord(root, id));
  ASSIGN_OR_RETURN(runtime::cgroup::Cgroup cg, LiveCgroup(record));
  return cg.ReadStats();
}

Result<void> WatchContainerEvents(const std::string& root, const std::string& id,
                                  std::chrono::nanoseconds interval, const EventSinks& sinks) {
  if (interval.count() <= 0) return Fail("the interval must be greater than 0");
  ASSIGN_OR_RETURN(runtime::ContainerRecord record, runtime::ReadRecord(root, id));
  ASSIGN_OR_RETURN(runtime::cgroup::Cgroup cg, LiveCgroup(record));
  // The supervisor lives exactly as long as the container: it exits right
  // after the init, having recorded the stop. Checked against its start time
  // so a reused pid is not mistaken for it.
  Result<UniqueFd> supervisor = PidfdOpen(record.supervisor_pid);
  if (!supervisor || !ProcessAlive(record.supervisor_pid, record.supervisor_start)) return {};
  std::uint64_t oom_kills = cg.OomKills().value_or(0);
  auto report_ooms = [&] {
    const std::uint64_t now = cg.OomKills().value_or(oom_kills);
    if (now > oom_kills) sinks.oom();
    oom_kills = now;
  };
  Clock::time_point tick = Clock::now() + interval;
  while (!ExitsBefore(supervisor->Get(), tick)) {
    if (Stopped(root, id)) break;
    report_ooms();
    if (Result<runtime::cgroup::Stats> stats = cg.ReadStats()) {
      sinks.stats(*stats);
    } else {
      log::Error(StrCat("container ", Quote(id), ": ", stats.error().message));
    }
    // Like Go's ticker, drop ticks a slow read or writer missed.
    tick += interval;
    if (Clock::time_point now = Clock::now(); tick <= now) tick = now + interval;
  }
  // An OOM kill often is the container's end: reported before returning.
  report_ooms();
  return {};
}

}  // namespace vigil::lifecycle
