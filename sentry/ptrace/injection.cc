#include "sentry/ptrace/injection.h"

#include <signal.h>
#include <sys/ptrace.h>

namespace vigil::sentry {
namespace {

// The length of the `syscall` instruction (0f 05): a thread stepped back by
// it makes a syscall again.
constexpr unsigned long long kSyscallInstruction = 2;

void Load(user_regs_struct& regs, const InjectedCall& call) {
  regs.rdi = call.args[0];
  regs.rsi = call.args[1];
  regs.rdx = call.args[2];
}

}  // namespace

bool Injection::Start(pid_t tid) {
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &saved_) != 0) return false;
  user_regs_struct regs = saved_;
  regs.orig_rax = static_cast<unsigned long long>(calls_.front().number);
  Load(regs, calls_.front());
  calls_.pop_front();
  if (::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) != 0) return false;
  return Resume(tid);
}

bool Injection::OnSyscallStop(pid_t tid) {
  if (expect_entry_) {
    expect_entry_ = false;
    return !Resume(tid);
  }
  user_regs_struct regs{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return true;
  const auto result = static_cast<std::int64_t>(regs.rax);
  if (result >= 0 && !calls_.empty()) {
    if (!BlockSignals(tid)) return true;
    regs.rip -= kSyscallInstruction;
    regs.rax = static_cast<unsigned long long>(calls_.front().number);
    Load(regs, calls_.front());
    calls_.pop_front();
    expect_entry_ = true;
    if (::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) != 0) return true;
    return !Resume(tid);
  }
  RestoreSignals(tid);
  user_regs_struct restored = saved_;
  restored.rax = static_cast<unsigned long long>(finish_(result));
  if (::ptrace(PTRACE_SETREGS, tid, nullptr, &restored) == 0) {
    ::ptrace(PTRACE_CONT, tid, nullptr, 0);
  }
  return true;
}

bool Injection::Resume(pid_t tid) { return ::ptrace(PTRACE_SYSCALL, tid, nullptr, 0) == 0; }

bool Injection::BlockSignals(pid_t tid) {
  std::uint64_t mask = 0;
  if (::ptrace(PTRACE_GETSIGMASK, tid, sizeof mask, &mask) != 0) return false;
  const std::uint64_t all = ~std::uint64_t{0};
  if (::ptrace(PTRACE_SETSIGMASK, tid, sizeof all, &all) != 0) return false;
  saved_mask_ = mask;
  return true;
}

void Injection::RestoreSignals(pid_t tid) {
  if (!saved_mask_) return;
  ::ptrace(PTRACE_SETSIGMASK, tid, sizeof *saved_mask_, &*saved_mask_);
  saved_mask_.reset();
}

void Injection::ResumeAfterStop(pid_t tid, int event, int signal) {
  if (event == PTRACE_EVENT_STOP && signal != SIGTRAP) {
    ::ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);  // stays stopped, as asked
  } else {
    // What reaches it here is SIGKILL, which needs no delivering.
    ::ptrace(PTRACE_SYSCALL, tid, nullptr, 0);
  }
}

}  // namespace vigil::sentry
