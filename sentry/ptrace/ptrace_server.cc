#include "sentry/ptrace/ptrace_server.h"

#include <sys/ptrace.h>
#include <sys/user.h>

#include <cerrno>
#include <cstddef>

#include "base/log.h"
#include "base/strings.h"
#include "sentry/handlers/exec.h"
#include "sentry/ptrace/stops.h"

namespace vigil::sentry {
namespace {

constexpr long kTraceOptions = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
                               PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;

}  // namespace

PtraceServer::PtraceServer(EventLoop& loop, const Sandbox& sandbox, Mediator::Observer observer)
    : loop_(loop),
      sandbox_(sandbox),
      mediator_(loop, sandbox, std::move(observer)),
      execs_([this](const ExecApprovals::Approved& approved, pid_t pid, const std::string& mapped) {
        mediator_.RecordKilledExec(approved, pid, mapped);
      }) {}

Result<void> PtraceServer::Adopt(pid_t pid, UniqueFd) {
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, kTraceOptions) != 0) {
    return FailErrno(StrCat("ptrace process ", pid, " for the sentry"));
  }
  return {};
}

bool PtraceServer::OnChildEvent(const siginfo_t& child) {
  if (ptrace_stops::IsExit(child)) {
    held_.erase(child.si_pid);
    execs_.Forget(child.si_pid);
    return false;
  }
  std::optional<ptrace_stops::Stop> stop = ptrace_stops::StopOf(child);
  if (!stop) return false;
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

void PtraceServer::OnSeccompStop(pid_t tid) {
  user_regs_struct regs{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return;  // killed since
  const SyscallEvent event{.tid = tid,
                           .number = static_cast<int>(regs.orig_rax),
                           .args = {regs.rdi, regs.rsi, regs.rdx, regs.r10, regs.r8, regs.r9}};
  const std::uint64_t hold = next_hold_++;
  held_[tid] = hold;
  loop_.Spawn([this, tid, hold, event] { Serve(tid, hold, event); });
}

void PtraceServer::Serve(pid_t tid, std::uint64_t hold, const SyscallEvent& event) {
  const StillWaiting still_waiting = [this, tid, hold] { return StillHeld(tid, hold); };
  Mediator::Decided decided = mediator_.Decide(event, still_waiting);
  Verdict& verdict = decided.verdict;
  if (verdict.kind == Verdict::Kind::kInstallFd) {
    // Refused at create (PtraceSupports); should a handler still open a
    // file, the workload does not get it.
    log::Warning(StrCat("sentry: syscall ", event.number,
                        " would install a descriptor, which the ptrace platform cannot"));
    verdict = Verdict::Fail(ENOSYS, Decision::kDeny);
  }
  if (verdict.kind == Verdict::Kind::kStale || !StillHeld(tid, hold)) {
    if (auto it = held_.find(tid); it != held_.end() && it->second == hold) held_.erase(it);
    return;
  }
  if (verdict.verify_exec) {
    execs_.Approve(tid, {.event = event, .args = decided.args, .image = verdict.exec_image});
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

void PtraceServer::Release(pid_t tid, const Verdict& verdict) {
  held_.erase(tid);
  if (verdict.kind == Verdict::Kind::kReturn) {
    user_regs_struct regs{};
    if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return;
    // No syscall number: the kernel skips the call and returns rax.
    regs.orig_rax = static_cast<unsigned long long>(-1);
    regs.rax = verdict.error != 0 ? static_cast<unsigned long long>(-verdict.error)
                                  : static_cast<unsigned long long>(verdict.value);
    if (::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) != 0) return;
  }
  // kContinue: the kernel runs the syscall as asked (filters re-checked).
  ::ptrace(PTRACE_CONT, tid, nullptr, 0);
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
