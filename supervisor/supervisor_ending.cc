// Ending a container the supervisor has to end itself, so that nothing is
// left running when no one is there to stop it:
// - its timeout (ContainerRecord::timeout_ms, lifecycle/lifetime.h),
//   counted from `start` while the container runs (not while paused): SIGTERM to every process,
//   then SIGKILL to what is left after the grace period, even an init that ignores TERM (as a pid
//   namespace's init does without a handler);
// - for a foreground `vigil run`: its client told to stop (SIGTERM or
//   SIGHUP, passed on to the init as runc does) is given the same grace
//   before the KILL, and its client gone (killed, its terminal closed) takes
//   the container with it at once, and then its state (supervisor.cc).
// Each step is an audit event; the exit status is the kernel's (137 after
// the KILL).
#include <signal.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "base/log.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/container/remove.h"
#include "supervisor/supervisor_process.h"

namespace vigil::supervisor {
namespace {

// Fires `timer` once after `ms`; nullopt disarms it.
Result<void> SetTimer(int timer, std::optional<std::uint64_t> ms) {
  itimerspec when{};
  if (ms) {
    when.it_value.tv_sec = static_cast<time_t>(*ms / 1000);
    // An all-zero time would disarm the timer instead of firing it now.
    when.it_value.tv_nsec = *ms == 0 ? 1 : static_cast<long>(*ms % 1000) * 1'000'000L;
  }
  if (::timerfd_settime(timer, 0, &when, nullptr) != 0) return FailErrno("timerfd_settime");
  return {};
}

std::string_view EventName(Ending why) {
  switch (why) {
    case Ending::kTimeout:
      return "timeout";
    case Ending::kClientSignal:
      return "client-signal";
    case Ending::kClientGone:
      return "client-gone";
    case Ending::kMemoryLimit:
      return "memory-limit";
  }
  return "ending";
}

}  // namespace

Result<void> Supervisor::WatchEndings() {
  ending_timer_.Reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  if (!ending_timer_) return FailErrno("timerfd_create");
  RETURN_IF_ERROR(loop_->Watch(ending_timer_.Get(), [this](std::uint32_t) {
    std::uint64_t expirations = 0;
    if (::read(ending_timer_.Get(), &expirations, sizeof expirations) != sizeof expirations) return;
    if (!ending_) {
      BeginEnding(Ending::kTimeout);
    } else {
      KillEveryProcess();
    }
  }));
  if (!args_.foreground) return {};
  // The client is this process's parent until it dies; a pidfd taken after
  // it died would be another's, so the parent is checked again after.
  const pid_t client = ::getppid();
  Result<UniqueFd> pidfd = PidfdOpen(client);
  if (!pidfd || ::getppid() != client) {
    BeginEnding(Ending::kClientGone);
    return {};
  }
  client_pidfd_ = std::move(*pidfd);
  return loop_->Watch(client_pidfd_.Get(), [this](std::uint32_t) {
    loop_->Unwatch(client_pidfd_.Get());
    BeginEnding(Ending::kClientGone);
  });
}

Result<void> Supervisor::ArmTimeout() {
  if (args_.record.timeout_ms == 0 || ending_) return {};
  return SetTimer(ending_timer_.Get(), args_.record.timeout_ms);
}

Result<void> Supervisor::StopTimeoutClock() {
  if (ending_ || timeout_left_ms_) return {};
  itimerspec left{};
  if (::timerfd_gettime(ending_timer_.Get(), &left) != 0) return FailErrno("timerfd_gettime");
  // Disarmed: no timeout, or it fired and its ending is on its way.
  if (left.it_value.tv_sec == 0 && left.it_value.tv_nsec == 0) return {};
  timeout_left_ms_ = static_cast<std::uint64_t>(left.it_value.tv_sec) * 1000 +
                     static_cast<std::uint64_t>(left.it_value.tv_nsec + 999'999) / 1'000'000;
  return SetTimer(ending_timer_.Get(), std::nullopt);
}

Result<void> Supervisor::RestartTimeoutClock() {
  if (!timeout_left_ms_) return {};
  const std::uint64_t left = *timeout_left_ms_;
  timeout_left_ms_.reset();
  if (ending_) return {};
  return SetTimer(ending_timer_.Get(), left);
}

void Supervisor::BeginEnding(Ending why) {
  // An ending under way keeps its grace period, unless the client is gone:
  // then no one is left to wait for.
  if (ending_ && why != Ending::kClientGone) return;
  ending_ = why;
  if (why == Ending::kMemoryLimit) {
    RecordEnding({{"heldBytes", StrCat(memory_over_), true},
                  {"limitBytes", StrCat(memory_cap_.value_or(0)), true}});
  }
  if (why == Ending::kClientGone || why == Ending::kMemoryLimit) {
    (void)SetTimer(ending_timer_.Get(), std::nullopt);
    KillEveryProcess();
    return;
  }
  std::vector<sentry::audit::Arg> details;
  if (why == Ending::kTimeout) {
    details.push_back({"afterMs", StrCat(args_.record.timeout_ms), true});
  }
  details.push_back({"graceMs", StrCat(args_.record.timeout_grace_ms), true});
  details.push_back({"signal", "SIGTERM", false});
  // A client's signal has gone to the init already (ForwardSignals).
  if (why == Ending::kTimeout) {
    details.push_back({"processes", StrCat(SignalEveryProcess(SIGTERM)), true});
  }
  RecordEnding(std::move(details));
  if (Result<void> armed = SetTimer(ending_timer_.Get(), args_.record.timeout_grace_ms); !armed) {
    log::Error(StrCat("container ", args_.record.id, ": ", armed.error().message,
                      "; killing it now instead of after the grace period"));
    KillEveryProcess();
  }
}

void Supervisor::KillEveryProcess() {
  const std::size_t killed = SignalEveryProcess(SIGKILL);
  // A frozen process takes its KILL only once thawed (`vigil pause`).
  if (cgroup_) (void)cgroup_->Thaw();
  RecordEnding({{"signal", "SIGKILL", false}, {"processes", StrCat(killed), true}});
}

void Supervisor::RecordEnding(std::vector<sentry::audit::Arg> details) {
  if (audit_) {
    audit_->RecordEvent(EventName(*ending_), init_pid_, sentry::audit::Decision::kKill,
                        std::move(details));
  }
}

std::size_t Supervisor::SignalEveryProcess(int sig) {
  std::vector<pid_t> pids;
  if (cgroup_) {
    if (Result<std::vector<pid_t>> listed = cgroup_->Processes(); listed) pids = std::move(*listed);
  }
  std::size_t signalled = 0;
  const pid_t self = ::getpid();
  for (pid_t pid : pids) {
    if (pid != init_pid_ && pid != self && ::kill(pid, sig) == 0) ++signalled;
  }
  // The init last (its end ends a pid namespace's other processes), by its
  // pidfd, which no reused pid can stand for.
  if (PidfdSendSignal(init_pidfd_.Get(), sig)) ++signalled;
  return signalled;
}

void Supervisor::RemoveIfClientGone() {
  if (ending_ != Ending::kClientGone || args_.keep) return;
  if (!runtime::HooksOf(args_.spec, "poststop").empty()) {
    log::Warning(StrCat("container ", args_.record.id,
                        ": its client is gone and it stays "
                        "stopped: poststop hooks run only at `vigil delete`"));
    return;
  }
  // The supervisor's accounting cgroups are the container's.
  LeaveContainerCgroups();
  const std::string root = std::filesystem::path(args_.dir.path()).parent_path().string();
  if (Result<void> removed = runtime::RemoveStoppedContainer(root, args_.record.id); !removed) {
    log::Error(
        StrCat("container ", args_.record.id, ": its client is gone: ", removed.error().message));
  }
}

}  // namespace vigil::supervisor
