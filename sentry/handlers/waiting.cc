#include "sentry/handlers/waiting.h"

#include <sys/epoll.h>
#include <sys/timerfd.h>

#include <cerrno>

#include "base/unique_fd.h"
#include "sentry/core/thread_status.h"

namespace vigil::sentry {

namespace {

// Whether a signal the calling thread would take is pending now.
bool Interrupted(const HandlerContext& context) { return SignalDeliverableTo(context.event.tid); }

Result<UniqueFd> TimerIn(int milliseconds) {
  UniqueFd timer(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
  if (!timer) return FailErrno("timerfd_create");
  const itimerspec later{
      .it_interval = {},
      .it_value = {.tv_sec = milliseconds / 1000, .tv_nsec = (milliseconds % 1000) * 1'000'000L}};
  if (::timerfd_settime(timer.Get(), 0, &later, nullptr) != 0) return FailErrno("timerfd_settime");
  return timer;
}

// After a wait: whether the call is still there and uninterrupted.
Result<void> StillWaiting(HandlerContext& context) {
  if (!context.tracee.Valid()) return FailErrno(ENOENT, "the syscall no longer waits");
  if (Interrupted(context)) return FailErrno(kRestartSys, "interrupted by a signal");
  return {};
}

}  // namespace

Result<void> PauseForRetry(HandlerContext& context, int milliseconds) {
  ASSIGN_OR_RETURN(UniqueFd timer, TimerIn(milliseconds));
  RETURN_IF_ERROR(context.wait(timer.Get(), EPOLLIN));
  return StillWaiting(context);
}

Result<void> WaitInterruptibly(HandlerContext& context, int fd, std::uint32_t events) {
  ASSIGN_OR_RETURN(UniqueFd timer, TimerIn(50));
  UniqueFd either(::epoll_create1(EPOLL_CLOEXEC));
  if (!either) return FailErrno("epoll_create1");
  epoll_event on_fd{.events = events, .data = {}};
  epoll_event on_timer{.events = EPOLLIN, .data = {}};
  if (::epoll_ctl(either.Get(), EPOLL_CTL_ADD, fd, &on_fd) != 0 ||
      ::epoll_ctl(either.Get(), EPOLL_CTL_ADD, timer.Get(), &on_timer) != 0) {
    return FailErrno("epoll_ctl");
  }
  RETURN_IF_ERROR(context.wait(either.Get(), EPOLLIN));
  return StillWaiting(context);
}

}  // namespace vigil::sentry
