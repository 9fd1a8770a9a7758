// Serving the container once created: the start request, the listeners of
// exec'd processes, signals to forward and orphans to reap, until the init
// exits and the record says so.
#include <malloc.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

#include "base/file.h"
#include "base/log.h"
#include "base/scope_guard.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/container/supervisor_control.h"
#include "runtime/process/hooks.h"
#include "runtime/process/seccomp_agent.h"
#include "supervisor/self_confinement.h"
#include "supervisor/supervisor_process.h"

namespace vigil::supervisor {
namespace {

using config::ContainerStatus;
using runtime::MessageType;

// Whether the process at the other end of `conn` runs in an execution domain
// other than PER_LINUX; if that cannot be told, assume it may.
bool PeerPersonalityDiffers(int conn) {
  ucred peer{};
  socklen_t length = sizeof peer;
  if (::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return true;
  Result<std::string> text = ReadFile(StrCat("/proc/", peer.pid, "/personality"), 64);
  return !text || !text->starts_with("00000000");
}

// A hook's end awaited by the calling fiber: the hook's pidfd, and a timer
// for its timeout, in an epoll set of their own that the loop watches. So
// the sentry keeps answering the container's syscalls while a poststart
// hook runs (the container's program runs by then, and a hook may wait
// for it).
Result<bool> WaitInFiber(sentry::EventLoop& loop, int fd, int timeout_ms) {
  UniqueFd set(::epoll_create1(EPOLL_CLOEXEC));
  if (!set) return FailErrno("epoll_create1");
  epoll_event event{.events = EPOLLIN, .data = {.fd = fd}};
  if (::epoll_ctl(set.Get(), EPOLL_CTL_ADD, fd, &event) != 0) return FailErrno("epoll_ctl");
  UniqueFd timer;
  if (timeout_ms >= 0) {
    timer.Reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
    if (!timer) return FailErrno("timerfd_create");
    itimerspec when{};
    when.it_value.tv_sec = timeout_ms / 1000;
    // An all-zero time would disarm the timer instead of firing it now.
    when.it_value.tv_nsec = timeout_ms == 0 ? 1 : (timeout_ms % 1000) * 1000000L;
    if (::timerfd_settime(timer.Get(), 0, &when, nullptr) != 0) return FailErrno("timerfd_settime");
    epoll_event expiry{.events = EPOLLIN, .data = {.fd = timer.Get()}};
    if (::epoll_ctl(set.Get(), EPOLL_CTL_ADD, timer.Get(), &expiry) != 0) {
      return FailErrno("epoll_ctl");
    }
  }
  for (;;) {
    RETURN_IF_ERROR(loop.Wait(set.Get(), EPOLLIN));
    ASSIGN_OR_RETURN(bool ended, runtime::PollReadable(fd, 0));
    if (ended) return true;
    if (timer) {
      ASSIGN_OR_RETURN(bool expired, runtime::PollReadable(timer.Get(), 0));
      if (expired) return false;
    }
  }
}

}  // namespace

Result<void> Supervisor::Start() {
  if (args_.record.status != ContainerStatus::kCreated || starting_) {
    return Fail(StrCat("cannot start container ", Quote(args_.record.id), ": it is ",
                       starting_ ? "starting" : config::NameOf(args_.record.status),
                       ", not created"));
  }
  starting_ = true;
  ScopeGuard done_starting([this] { starting_ = false; });
  RETURN_IF_ERROR(ArmTimeout());
  RETURN_IF_ERROR(init_channel_->Send(MessageType::kStart));
  // The init's end of the channel closes on exec: end of file means the
  // program runs; a message means exec failed and says why.
  Result<runtime::Message> reply = ReceiveServingSentry();
  init_channel_.reset();
  if (reply) {
    // The init exits after saying why: the container is stopped, and a
    // second start must be refused, not sent to a closed channel.
    args_.record.status = ContainerStatus::kStopped;
    (void)args_.dir.SaveRecord(args_.record);
    return Fail(reply->type == MessageType::kError ? reply->text : "unexpected message from init");
  }
  if (reply.error().code != EPIPE) return tl::unexpected(reply.error());
  args_.record.status = ContainerStatus::kRunning;
  RETURN_IF_ERROR(args_.dir.SaveRecord(args_.record));
  // A failing poststart hook is worth a warning, not the container (spec).
  if (Result<void> hooks = runtime::RunHooks(
          "poststart", runtime::HooksOf(args_.spec, "poststart"),
          runtime::HookState(args_.record, ContainerStatus::kRunning), HookPlacement(),
          [this](int fd, int timeout_ms) { return WaitInFiber(*loop_, fd, timeout_ms); });
      !hooks) {
    log::Warning(hooks.error().message);
  }
  Confine();
  return {};
}

bool Supervisor::ActsUnconfinedAtStart() const {
  return !args_.spec.SyscallsForAgent().empty() ||
         !runtime::HooksOf(args_.spec, "poststart").empty();
}

void Supervisor::Confine() {
  if (confined_) return;
  confined_ = true;
  if (Result<void> confined =
          ConfineSupervisor({.traces_workload = Platform() == sentry::Platform::kPtrace,
                             .resolves_names = resolver_ != nullptr});
      !confined) {
    log::Error(StrCat("the supervisor could not confine itself: ", confined.error().message));
  }
}

Result<runtime::Message> Supervisor::ReceiveServingSentry() {
  for (;;) {
    RETURN_IF_ERROR(loop_->Wait(init_channel_->fd(), EPOLLIN));
    ASSIGN_OR_RETURN(runtime::Message message, init_channel_->Receive());
    Result<void> served;
    if (message.type == MessageType::kSentryListener ||
        message.type == MessageType::kSentryTracee) {
      served = AdoptInit(message);
    } else if (message.type == MessageType::kAgentListener) {
      served = HandInitToSeccompAgent(message);
    } else {
      return message;
    }
    if (!served) {
      // An init the sentry (or the profile's agent) cannot serve must not
      // run on.
      (void)PidfdSendSignal(init_pidfd_.Get(), SIGKILL);
      return tl::unexpected(served.error());
    }
    RETURN_IF_ERROR(init_channel_->Send(MessageType::kProceed));
  }
}

// Both announcements name a descriptor of the init's: its filter's listener,
// or the sentry's end of its descriptor channel (the ptrace platform).
Result<void> Supervisor::AdoptInit(const runtime::Message& announcement) {
  ASSIGN_OR_RETURN(int fd, runtime::AnnouncedDescriptor(announcement.text));
  ASSIGN_OR_RETURN(UniqueFd connection, PidfdGetfd(init_pidfd_.Get(), fd));
  return sentry_->Adopt(init_pid_, std::move(connection));
}

// The init's state as runc gives it to the agent: still "creating". The
// syscalls the agent answers reach it before the sentry, so the audit says
// which ones went where.
Result<void> Supervisor::HandInitToSeccompAgent(const runtime::Message& announcement) {
  const config::Seccomp& profile = *args_.spec.linux_spec->seccomp;
  RETURN_IF_ERROR(
      runtime::HandToSeccompAgent(profile, init_pidfd_.Get(), announcement.text, init_pid_,
                                  runtime::HookState(args_.record, ContainerStatus::kCreating)));
  audit_->RecordEvent("seccomp-agent", init_pid_, sentry::audit::Decision::kNone,
                      {{"listener", profile.listener_path},
                       {"syscalls", Join(config::SyscallsForAgent(profile), ",")}});
  return {};
}

Result<void> Supervisor::AdoptTracee(const UniqueFd& pidfd, std::string_view channel_number) {
  ASSIGN_OR_RETURN(pid_t pid, PidOfPidfd(pidfd.Get()));
  ASSIGN_OR_RETURN(int fd, runtime::AnnouncedDescriptor(channel_number));
  ASSIGN_OR_RETURN(UniqueFd channel, PidfdGetfd(pidfd.Get(), fd));
  return sentry_->Adopt(pid, std::move(channel));
}

void Supervisor::ServeControl() {
  UniqueFd conn(::accept4(control_fd_.Get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn) return;
  // A request may wait (start waits for the init's exec), so each runs in a
  // fiber; the loop keeps serving the sentry meanwhile.
  auto shared = std::make_shared<UniqueFd>(std::move(conn));
  loop_->Spawn([this, shared] { ServeRequest(std::move(*shared)); });
}

void Supervisor::ServeRequest(UniqueFd conn) {
  if (Result<void> allowed = control_peers_->Check(conn.Get()); !allowed) {
    audit_->RecordEvent("control-refused", init_pid_, sentry::audit::Decision::kDeny,
                        {{"reason", allowed.error().message, false}});
    runtime::Reply(conn.Get(), allowed);
    return;
  }
  if (!loop_->Wait(conn.Get(), EPOLLIN)) return;
  UniqueFd attached;
  Result<runtime::ControlRequest> request = runtime::ReadControlRequest(conn.Get(), &attached);
  if (!request) {
    runtime::Reply(conn.Get(), tl::unexpected(std::move(request).error()));
    return;
  }
  switch (request->verb) {
    case runtime::ControlVerb::kStart:
      runtime::Reply(conn.Get(), Start());
      return;
    case runtime::ControlVerb::kTrim:
      // pause --release-memory: the heap's free pages go back to the kernel
      // rather than to swap, or stay resident on a host without any.
      ::malloc_trim(0);
      runtime::Reply(conn.Get(), Result<void>{});
      return;
    case runtime::ControlVerb::kPaused:
      runtime::Reply(conn.Get(), StopTimeoutClock());
      return;
    case runtime::ControlVerb::kResumed:
      runtime::Reply(conn.Get(), RestartTimeoutClock());
      return;
    case runtime::ControlVerb::kListener:
    case runtime::ControlVerb::kTracee:
      // An exec'd process, from `vigil exec`, whose execution domain the
      // process inherited: its sentry listener, or on the ptrace platform a
      // pidfd to trace it by and its descriptor channel's number in it.
      if (PeerPersonalityDiffers(conn.Get())) sentry_->AssumePersonalityMayDiffer();
      runtime::Reply(conn.Get(), request->verb == runtime::ControlVerb::kListener
                                     ? sentry_->Adopt(0, std::move(attached))
                                     : AdoptTracee(attached, request->channel_number));
      return;
  }
}

void Supervisor::ForwardSignals() {
  signalfd_siginfo info{};
  while (::read(signal_fd_.Get(), &info, sizeof info) == sizeof info) {
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) {
      // As subreaper the supervisor inherits orphans of a container without
      // its own pid namespace; reap them, and notice the init's end. The
      // threads the sentry traces to verify their exec report their stops
      // here too (a tracer's waitid sees them without WSTOPPED).
      // The init's own end is only looked at (WNOWAIT): its zombie is the
      // caller's subreaper's to reap (Supervise).
      siginfo_t child{};
      while (::waitid(P_ALL, 0, &child, WEXITED | WNOHANG | WNOWAIT) == 0 && child.si_pid != 0) {
        if (child.si_pid == init_pid_ && child.si_code != CLD_TRAPPED) {
          exit_ = child;
          break;
        }
        if (::waitid(P_PID, child.si_pid, &child, WEXITED | WNOHANG) != 0) break;
        if (sentry_) (void)sentry_->OnChildEvent(child);
        child = {};
      }
      continue;
    }
    (void)PidfdSendSignal(init_pidfd_.Get(), sig);
    // A foreground client told to stop: the init may ignore it (a pid
    // namespace's init without a handler does), so the KILL follows after
    // the grace period.
    if (args_.foreground &&
        (sig == SIGTERM || sig == SIGHUP || (sig == SIGINT && args_.interrupt_ends))) {
      BeginEnding(Ending::kClientSignal);
    }
  }
}

Result<siginfo_t> Supervisor::Supervise() {
  // Without poststart hooks or an agent nothing is left to spawn or
  // connect to once created: confined now, so that `start` does not wait
  // for it.
  if (!ActsUnconfinedAtStart()) Confine();
  // The init may have died before the first SIGCHLD could be read.
  ForwardSignals();
  // A start request still being answered is answered first: a program
  // that exits at once can be reaped (its exec's ptrace stop, then its
  // exit) before the init's channel reports the exec.
  RETURN_IF_ERROR(loop_->Run([this] { return exit_.has_value() && !starting_; }));
  return *exit_;
}

void Supervisor::MarkStopped() {
  RecordLimitEvents();
  if (audit_) audit_->Flush();
  args_.record.status = ContainerStatus::kStopped;
  (void)args_.dir.SaveRecord(args_.record);
  ::unlink(args_.dir.ControlSocketPath().c_str());
}

}  // namespace vigil::supervisor
