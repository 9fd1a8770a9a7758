// Limits for a user's container that has no cgroup (rootless, where no
// cgroup2 subtree is delegated to the user: GoWithoutCgroup). The policy's
// default limits still hold, by other means (issue 38: a fork bomb ran to
// the host's pid_max, a memory bomb to the host's memory):
// - processes: RLIMIT_NPROC, which the kernel counts per user namespace
//   (ucounts, Linux 5.14), so it caps the container's tasks alone and none
//   of the user's others;
// - memory: the supervisor adds up what the container's processes hold
//   (resident pages) every 100 ms and ends the container, at once and
//   audited as "memory-limit", once that passes the limit. A bomb can
//   overshoot by what it touches in one period; a cgroup is exact.
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "supervisor/supervisor_process.h"

namespace vigil::supervisor {
namespace {

constexpr long kMemoryCheckNanoseconds = 100'000'000;

// The processes below `init` (their pids), found through each task's
// children list, and the init itself.
std::set<pid_t> ProcessesFrom(pid_t init) {
  std::set<pid_t> found{init};
  std::deque<pid_t> next{init};
  while (!next.empty()) {
    const pid_t pid = next.front();
    next.pop_front();
    std::error_code ec;
    for (const auto& task :
         std::filesystem::directory_iterator(StrCat("/proc/", pid, "/task"), ec)) {
      std::istringstream children(
          ReadFile(task.path().string() + "/children", 1 << 16).value_or(""));
      for (pid_t child = 0; children >> child;) {
        if (found.insert(child).second) next.push_back(child);
      }
    }
  }
  return found;
}

// What `pid` holds resident (statm's second field, in pages), in bytes.
std::uint64_t ResidentBytes(pid_t pid) {
  std::istringstream statm(ReadFile(StrCat("/proc/", pid, "/statm"), 256).value_or(""));
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

std::string Supervisor::CapWithoutCgroup() {
  const config::Linux& linux_spec = LinuxSpec();
  if (!linux_spec.resources) return "no resource limits";
  std::string held;
  if (linux_spec.resources->pids && linux_spec.resources->pids->limit > 0 && args_.spec.process) {
    rlimit hard{};
    ::getrlimit(RLIMIT_NPROC, &hard);
    const auto limit = std::min<std::uint64_t>(
        static_cast<std::uint64_t>(linux_spec.resources->pids->limit), hard.rlim_max);
    std::vector<config::Rlimit>& rlimits = args_.spec.process->rlimits;
    if (std::none_of(rlimits.begin(), rlimits.end(),
                     [](const config::Rlimit& r) { return r.type == "RLIMIT_NPROC"; })) {
      rlimits.push_back({.type = "RLIMIT_NPROC", .hard = limit, .soft = limit});
      held = StrCat("processes capped at ", limit, " (RLIMIT_NPROC in its user namespace)");
    }
  }
  if (linux_spec.resources->memory && linux_spec.resources->memory->limit &&
      *linux_spec.resources->memory->limit > 0) {
    memory_cap_ = static_cast<std::uint64_t>(*linux_spec.resources->memory->limit);
    held += StrCat(held.empty() ? "" : ", ", "memory capped at ", *memory_cap_,
                   " bytes by the supervisor");
  }
  return held.empty() ? "no resource limits" : held;
}

Result<void> Supervisor::WatchMemoryWithoutCgroup() {
  if (!memory_cap_) return {};
  memory_timer_.Reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  if (!memory_timer_) return FailErrno("timerfd_create");
  const itimerspec every{.it_interval = {.tv_sec = 0, .tv_nsec = kMemoryCheckNanoseconds},
                         .it_value = {.tv_sec = 0, .tv_nsec = kMemoryCheckNanoseconds}};
  if (::timerfd_settime(memory_timer_.Get(), 0, &every, nullptr) != 0) {
    return FailErrno("timerfd_settime");
  }
  return loop_->Watch(memory_timer_.Get(), [this](std::uint32_t) {
    std::uint64_t expirations = 0;
    (void)!::read(memory_timer_.Get(), &expirations, sizeof expirations);
    if (ending_ || exit_) return;
    std::uint64_t held = 0;
    for (pid_t pid : ProcessesFrom(init_pid_)) held += ResidentBytes(pid);
    if (held <= *memory_cap_) return;
    memory_over_ = held;
    BeginEnding(Ending::kMemoryLimit);
  });
}

}  // namespace vigil::supervisor
