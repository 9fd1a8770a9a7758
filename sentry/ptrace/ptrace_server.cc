#include "sentry/ptrace/ptrace_server.h"

#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <optional>

#include "base/log.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "sentry/core/acting_as.h"
#include "sentry/core/platform.h"
#include "sentry/core/thread_status.h"
#include "sentry/handlers/exec.h"
#include "sentry/ptrace/channel_guard.h"
#include "sentry/serve/ptrace_stops.h"

namespace vigil::sentry {
namespace {

// TRACESYSGOOD tells the syscall stops of injected calls from a SIGTRAP.
constexpr long kTraceOptions = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
                               PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL |
                               PTRACE_O_TRACESYSGOOD;

// The x86_64 ABI's red zone: the 128 bytes below the stack pointer that
// the thread's code may use without moving it.
constexpr std::uint64_t kRedZone = 128;

}  // namespace

PtraceServer::PtraceServer(EventLoop& loop, const Sandbox& sandbox, Mediator::Observer observer)
    : loop_(loop),
      sandbox_(sandbox),
      mediator_(loop, sandbox, std::move(observer)),
      execs_([this](const ExecApprovals::Approved& approved, pid_t pid, const std::string& mapped) {
        mediator_.RecordKilledExec(approved, pid, mapped);
      }) {}

Result<void> PtraceServer::Adopt(pid_t pid, UniqueFd channel) {
  if (channel) {
    ASSIGN_OR_RETURN(UniqueFd process, PidfdOpen(pid));
    RETURN_IF_ERROR(channels_.Add(process.Get(), std::move(channel)));
  }
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, kTraceOptions) != 0) {
    return FailErrno(StrCat("ptrace process ", pid, " for the sentry"));
  }
  return {};
}

bool PtraceServer::OnChildEvent(const siginfo_t& child) {
  if (ptrace_stops::IsExit(child)) {
    OnExit(child.si_pid);
    return false;
  }
  std::optional<ptrace_stops::Stop> stop = ptrace_stops::StopOf(child);
  if (!stop) return false;
  if (ptrace_stops::IsSyscallStop(*stop)) {
    OnSyscallStop(stop->pid);
    return true;
  }
  if (injections_.count(stop->pid) != 0) {
    Injection::ResumeAfterStop(stop->pid, stop->event, stop->signal);
    return true;
  }
  switch (stop->event) {
    case PTRACE_EVENT_SECCOMP:
      OnSeccompStop(stop->pid);
      break;
    case PTRACE_EVENT_EXEC:
      OnExec(stop->pid);
      break;
    default:
      ptrace_stops::PassOn(*stop);
      break;
  }
  return true;
}

void PtraceServer::OnExit(pid_t tid) {
  held_.erase(tid);
  interrupted_.erase(tid);
  execs_.Forget(tid);
  auto it = injections_.find(tid);
  if (it == injections_.end()) return;
  DescriptorChannel* channel = it->second.channel;
  injections_.erase(it);
  if (channel != nullptr) DescriptorChannels::Next(*channel);
}

void PtraceServer::OnSeccompStop(pid_t tid) {
  user_regs_struct regs{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return;  // killed since
  const SyscallEvent event{.tid = tid,
                           .number = static_cast<int>(regs.orig_rax),
                           .args = {regs.rdi, regs.rsi, regs.rdx, regs.r10, regs.r8, regs.r9}};
  if (std::optional<channel_guard::Answer> answer = channel_guard::AnswerFor(event)) {
    if (answer->run_as_asked) {
      Release(tid, Verdict::Continue());
    } else if (answer->calls.empty()) {
      Release(tid, Verdict::Fail(answer->error, Decision::kEmulate));
    } else {
      Inject(tid, Injection(std::move(answer->calls), [](std::int64_t last) { return last; }),
             nullptr);
    }
    return;
  }
  const std::uint64_t hold = next_hold_++;
  held_[tid] = hold;
  loop_.Spawn([this, tid, hold, event] { Serve(tid, hold, event); });
}

void PtraceServer::Serve(pid_t tid, std::uint64_t hold, const SyscallEvent& event) {
  const StillWaiting still_waiting = [this, tid, hold] { return StillHeld(tid, hold); };
  Mediator::Decided decided = mediator_.Decide(event, still_waiting);
  // What follows is the sentry's own ptrace work, whatever credentials the
  // handler left (ActingAs).
  ActingAs::AsSentryOrExit();
  Verdict& verdict = decided.verdict;
  if (verdict.kind == Verdict::Kind::kStale || !StillHeld(tid, hold)) {
    Unhold(tid, hold);
    return;
  }
  if (verdict.kind == Verdict::Kind::kInstallFd) {
    Install(tid, hold, event, std::make_shared<Mediator::Decided>(std::move(decided)));
    return;
  }
  if (verdict.verify_exec) {
    execs_.Approve(tid, {.event = event,
                         .args = decided.args,
                         .image = verdict.exec_image,
                         .interpreter = verdict.exec_interpreter});
  }
  Release(tid, verdict);
  mediator_.Record(event, decided);
}

bool PtraceServer::StillHeld(pid_t tid, std::uint64_t hold) const {
  auto it = held_.find(tid);
  if (it == held_.end() || it->second != hold) return false;
  // Only a thread in a ptrace stop answers: a SIGKILL since has woken it.
  errno = 0;
  ::ptrace(PTRACE_PEEKUSER, tid, offsetof(user_regs_struct, orig_rax), nullptr);
  return errno == 0;
}

void PtraceServer::Unhold(pid_t tid, std::uint64_t hold) {
  if (auto it = held_.find(tid); it != held_.end() && it->second == hold) held_.erase(it);
}

void PtraceServer::Release(pid_t tid, const Verdict& verdict) {
  held_.erase(tid);
  if (verdict.kind == Verdict::Kind::kReturn) {
    user_regs_struct regs{};
    if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return;
    // No syscall number: the kernel skips the call and returns rax. Nor
    // does it restart a skipped call: an interrupted one is stopped again
    // at its exit (PTRACE_SYSCALL), where its number is put back.
    const long number = static_cast<long>(regs.orig_rax);
    regs.orig_rax = static_cast<unsigned long long>(-1);
    const int error = verdict.error == kRestartSys ? EINTR : verdict.error;
    regs.rax = error != 0 ? static_cast<unsigned long long>(-error)
                          : static_cast<unsigned long long>(verdict.value);
    if (::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) != 0) return;
    if (verdict.error == kRestartSys && ::ptrace(PTRACE_SYSCALL, tid, nullptr, 0) == 0) {
      interrupted_[tid] = number;
      return;
    }
  }
  // kContinue: the kernel runs the syscall as asked (filters re-checked).
  ::ptrace(PTRACE_CONT, tid, nullptr, 0);
}

void PtraceServer::Inject(pid_t tid, Injection injection, DescriptorChannel* channel) {
  held_.erase(tid);
  auto it = injections_.insert_or_assign(tid, Injecting{std::move(injection), channel}).first;
  if (it->second.injection.Start(tid)) return;
  injections_.erase(it);  // gone: its exit comes next
  if (channel != nullptr) DescriptorChannels::Next(*channel);
}

// At the exit of a skipped call a signal interrupted: the call's number
// and ERESTARTSYS, which the kernel's signal delivery turns into a restart
// after an SA_RESTART handler and into EINTR otherwise, as for a call it
// made wait itself. Should the signal be gone by now (another thread took
// it), nothing would deliver it: the call is restarted here.
void PtraceServer::Restartable(pid_t tid, long number) {
  user_regs_struct regs{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) == 0) {
    regs.orig_rax = static_cast<unsigned long long>(number);
    if (SignalDeliverableTo(tid)) {
      regs.rax = static_cast<unsigned long long>(-kRestartSys);
    } else {
      regs.rax = static_cast<unsigned long long>(number);
      regs.rip -= 2;  // the syscall instruction again
    }
    ::ptrace(PTRACE_SETREGS, tid, nullptr, &regs);
  }
  ::ptrace(PTRACE_CONT, tid, nullptr, 0);
}

void PtraceServer::OnSyscallStop(pid_t tid) {
  if (auto interrupted = interrupted_.find(tid); interrupted != interrupted_.end()) {
    const long number = interrupted->second;
    interrupted_.erase(interrupted);
    Restartable(tid, number);
    return;
  }
  auto it = injections_.find(tid);
  if (it == injections_.end()) {
    ::ptrace(PTRACE_CONT, tid, nullptr, 0);  // not a call the sentry made
    return;
  }
  if (!it->second.injection.OnSyscallStop(tid)) return;
  DescriptorChannel* channel = it->second.channel;
  injections_.erase(it);
  if (channel != nullptr) DescriptorChannels::Next(*channel);
}

void PtraceServer::Install(pid_t tid, std::uint64_t hold, const SyscallEvent& event,
                           std::shared_ptr<Mediator::Decided> decided) {
  // The channel the thread receives on is the one its descriptor is.
  std::shared_ptr<UniqueFd> peer;
  DescriptorChannel* channel = nullptr;
  if (decided->thread != nullptr) {
    if (Result<UniqueFd> fd = PidfdGetfd(decided->thread->pidfd.Get(), kDescriptorChannelFd); fd) {
      peer = std::make_shared<UniqueFd>(std::move(*fd));
      channel = channels_.Find(peer->Get());
    }
  }
  if (channel == nullptr) {
    log::Warning(StrCat("sentry: thread ", tid, " has no descriptor channel for syscall ",
                        event.number, "'s file"));
    Refuse(tid, event, *decided, ENOSYS);
    return;
  }
  auto send = [this, tid, hold, event, decided, channel, peer] {
    SendAndReceive(tid, hold, event, decided, *channel, peer);
  };
  if (channel->busy) {
    channel->waiting.push_back(std::move(send));
  } else {
    send();
  }
}

void PtraceServer::SendAndReceive(pid_t tid, std::uint64_t hold, const SyscallEvent& event,
                                  std::shared_ptr<Mediator::Decided> decided,
                                  DescriptorChannel& channel, std::shared_ptr<UniqueFd> peer) {
  channel.busy = true;
  std::shared_ptr<KnownThread> thread = decided->thread;
  if (!StillHeld(tid, hold)) {
    Unhold(tid, hold);
    DescriptorChannels::Next(channel);
    return;
  }
  if (Result<void> sent =
          DescriptorChannels::Send(channel, peer->Get(), decided->verdict.fd->Get());
      !sent) {
    log::Warning(StrCat("sentry: ", sent.error().message));
    Refuse(tid, event, *decided, EAGAIN);
    DescriptorChannels::Next(channel);
    return;
  }
  // The recvmsg's arguments go below the red zone, where a signal frame
  // would go: the thread's code keeps nothing there.
  errno = 0;
  const auto sp = static_cast<std::uint64_t>(
      ::ptrace(PTRACE_PEEKUSER, tid, offsetof(user_regs_struct, rsp), nullptr));
  const std::uint64_t scratch = (sp - kRedZone - sizeof(ReceiveBlock)) & ~std::uint64_t{15};
  const ReceiveBlock block = ReceiveBlockAt(scratch);
  if (errno != 0 || ::pwrite(thread->memory.Get(), &block, sizeof block,
                             static_cast<off_t>(scratch)) != sizeof block) {
    Refuse(tid, event, *decided, ENOMEM);
    DescriptorChannels::Next(channel);
    return;
  }
  const std::uint64_t flags = MSG_DONTWAIT | (decided->verdict.cloexec ? MSG_CMSG_CLOEXEC : 0);
  Injection receive(
      {{SYS_recvmsg, {kDescriptorChannelFd, scratch, flags}}},
      [this, event, decided, thread, scratch](std::int64_t result) {
        ReceiveBlock received{};
        const bool read = ::pread(thread->memory.Get(), &received, sizeof received,
                                  static_cast<off_t>(scratch)) == sizeof received;
        const std::int64_t answer = read ? ReceivedDescriptor(received, result) : -EFAULT;
        const Decision decision = decided->verdict.decision;
        if (answer < 0 && decided->verdict.undo) decided->verdict.undo();
        decided->verdict = answer >= 0 ? Verdict::Return(answer, decision)
                                       : Verdict::Fail(static_cast<int>(-answer), decision);
        mediator_.Record(event, *decided);
        return answer;
      });
  Inject(tid, std::move(receive), &channel);
}

void PtraceServer::Refuse(pid_t tid, const SyscallEvent& event, Mediator::Decided& decided,
                          int error) {
  if (decided.verdict.undo) decided.verdict.undo();  // a file made for a descriptor not sent
  decided.verdict = Verdict::Fail(error, decided.verdict.decision);
  Release(tid, decided.verdict);
  mediator_.Record(event, decided);
}

void PtraceServer::OnExec(pid_t pid) {
  const pid_t execed = ptrace_stops::ExecedThread(pid);
  // Only a restricted exec is approved, and each of its execs must be.
  const bool restricted = sandbox_.policy != nullptr && ExecRestricted(*sandbox_.policy);
  if (!restricted && !execs_.Has(execed)) {
    ::ptrace(PTRACE_CONT, pid, nullptr, 0);
    return;
  }
  // Killed (before its first instruction) unless it mapped what was approved.
  if (execs_.Verify(pid, execed)) ::ptrace(PTRACE_CONT, pid, nullptr, 0);
}

}  // namespace vigil::sentry
